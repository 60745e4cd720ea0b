package tools

import (
	"bytes"
	"path/filepath"
	"strings"
)

// Media is a file's bytes the model reads as they are (an image, audio, a video, a PDF):
// sent with the tool's answer as inline data, not as text.
type Media struct {
	MIMEType string `json:"mimeType"`
	Data     []byte `json:"data"`
}

// coreMaxMedia is the most media one call returns: Gemini's limit on inline data (a request
// of at most 20 MB; larger files go through its File API, which gem does not use), and
// Gemini CLI's read_file limit.
const coreMaxMedia = 20 << 20

// mediaTypes are the files read_file and read_many_files send as inline data, by extension:
// the image, audio, video and document types the Gemini API accepts (Gemini CLI reads the
// same: images, its audio formats, video, PDF). SVG is text and read as such.
var mediaTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".webp": "image/webp",
	".gif": "image/gif", ".heic": "image/heic", ".heif": "image/heif", ".bmp": "image/bmp",
	".mp3": "audio/mpeg", ".wav": "audio/wav", ".aiff": "audio/aiff", ".aif": "audio/aiff",
	".aac": "audio/aac", ".ogg": "audio/ogg", ".flac": "audio/flac",
	".mp4": "video/mp4", ".mpeg": "video/mpeg", ".mpg": "video/mpeg", ".mov": "video/quicktime",
	".avi": "video/x-msvideo", ".webm": "video/webm", ".wmv": "video/x-ms-wmv", ".3gp": "video/3gpp",
	".pdf": "application/pdf",
}

// mediaType is the MIME type name is read as inline data under, or "" for a file read as
// text (or described as binary). A file whose content is text is text whatever its name
// (Gemini CLI's check for audio and video: a .ts transcript is not an MPEG stream), so
// head, the file's first bytes, decides for audio and video; images and PDFs go by name.
func mediaType(name string, head []byte) string {
	mime := mediaTypes[strings.ToLower(filepath.Ext(name))]
	if (strings.HasPrefix(mime, "audio/") || strings.HasPrefix(mime, "video/")) && !isBinary(head) {
		return ""
	}
	return mime
}

// mediaByName reports whether name is read as media (so up to coreMaxMedia bytes).
func mediaByName(name string) bool { return mediaTypes[strings.ToLower(filepath.Ext(name))] != "" }

// isBinary: data's first 8000 bytes hold a NUL (git's test).
func isBinary(data []byte) bool { return bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 }
