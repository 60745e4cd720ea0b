package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gemhost/gem/registry/registrytest"
)

func TestMediaType(t *testing.T) {
	bin, text := []byte("\x89PNG\r\n\x1a\n\x00\x00"), []byte("just text\n")
	tests := []struct {
		name string
		head []byte
		want string
	}{
		{"a.png", bin, "image/png"},
		{"A.JPG", bin, "image/jpeg"},
		{"doc.pdf", []byte("%PDF-1.4\n"), "application/pdf"}, // a PDF is one whatever its bytes
		{"song.mp3", bin, "audio/mpeg"},
		{"clip.webm", bin, "video/webm"},
		{"transcript.mp3", text, ""}, // audio or video by name, text inside: text
		{"logo.svg", text, ""},       // SVG is read as text
		{"main.go", text, ""},
		{"blob.bin", bin, ""}, // binary, not a type the model takes
	}
	for _, tt := range tests {
		if got := mediaType(tt.name, tt.head); got != tt.want {
			t.Errorf("mediaType(%s) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestReadMedia: read_file and read_many_files return images and PDFs as Media (the
// bytes as they are), text as text, other binary files described; the limits are Gemini's
// 20 MB for media and 4 MB for the rest.
func TestReadMedia(t *testing.T) {
	env := registrytest.Env(t, nil)
	ws := env.Cwd
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 64)...)
	pdf := []byte("%PDF-1.4\n%%EOF\n")
	write := func(name string, data []byte) { os.WriteFile(filepath.Join(ws, name), data, 0o644) }
	write("pic.png", png)
	write("doc.pdf", pdf)
	write("blob.bin", []byte{0, 1, 2})
	write("notes.txt", []byte("hello\n"))
	write("big.png", bytes.Repeat([]byte{0}, coreMaxFile+1))        // over the text limit, under the media one
	write("huge.pdf", bytes.Repeat([]byte{'x'}, coreMaxMedia+1))    // over Gemini's
	write("huge.txt", bytes.Repeat([]byte("x\n"), coreMaxFile/2+1)) // over the text limit
	r := load(t, env, Options{CoreWorkspace: ws})
	call := func(tool string, args string) *Result {
		t.Helper()
		res, err := r.Call(context.Background(), tool, json.RawMessage(args), CallOptions{})
		if err != nil {
			t.Fatalf("%s %s: %v", tool, args, err)
		}
		return res
	}
	tests := []struct {
		tool, args string
		text       string   // in the text
		media      []string // the MIME types attached
		failed     bool
	}{
		{"read_file", `{"file_path":"pic.png"}`, "image/png", []string{"image/png"}, false},
		{"read_file", `{"file_path":"doc.pdf"}`, "application/pdf", []string{"application/pdf"}, false},
		{"read_file", `{"file_path":"big.png"}`, "attached", []string{"image/png"}, false},
		{"read_file", `{"file_path":"huge.pdf"}`, "over the limit of 20971520", nil, true},
		{"read_file", `{"file_path":"huge.txt"}`, "over the limit of 4194304", nil, true},
		{"read_file", `{"file_path":"blob.bin"}`, "[binary file", nil, false},
		{"read_file", `{"file_path":"notes.txt"}`, "hello", nil, false},
		{"read_many_files", `{"include":["*.png","doc.pdf","notes.txt"]}`, "hello", []string{"image/png", "image/png", "application/pdf"}, false},
	}
	for _, tt := range tests {
		res := call(tt.tool, tt.args)
		var got []string
		for _, m := range res.Media {
			got = append(got, m.MIMEType)
		}
		if !strings.Contains(res.Text, tt.text) || strings.Join(got, ",") != strings.Join(tt.media, ",") || (res.Error != nil) != tt.failed {
			t.Errorf("%s %s: %q %v %v", tt.tool, tt.args, res.Text, got, res.Error)
		}
	}
	if res := call("read_file", `{"file_path":"pic.png"}`); !bytes.Equal(res.Media[0].Data, png) {
		t.Errorf("the PNG's bytes changed: %x", res.Media[0].Data)
	}
}

// TestMCPMedia: an MCP server's images and audio reach the model as Media, named in the text.
func TestMCPMedia(t *testing.T) {
	res := fromMCP(&sdk.CallToolResult{Content: []sdk.Content{
		&sdk.TextContent{Text: "a chart"},
		&sdk.ImageContent{MIMEType: "image/png", Data: []byte("png")},
		&sdk.AudioContent{MIMEType: "audio/wav", Data: []byte("wav")},
	}})
	if len(res.Media) != 2 || res.Media[0].MIMEType != "image/png" || string(res.Media[0].Data) != "png" || res.Media[1].MIMEType != "audio/wav" {
		t.Errorf("media: %+v", res.Media)
	}
	if res.Text != "a chart\n[image image/png, 3 bytes: attached]\n[audio audio/wav, 3 bytes: attached]" {
		t.Errorf("text: %q", res.Text)
	}
}

// TestCappedMedia: a result's media over 20 MB in all keep the first that fit, the rest
// named as dropped.
func TestCappedMedia(t *testing.T) {
	big := make([]byte, coreMaxMedia/2+1)
	r := (&Result{Text: "x", Media: []Media{{"image/png", big}, {"image/jpeg", big}, {"image/gif", []byte("g")}}}).capped()
	if len(r.Media) != 2 || r.Media[0].MIMEType != "image/png" || r.Media[1].MIMEType != "image/gif" || !strings.Contains(r.Text, "image/jpeg of 10485761 bytes dropped") {
		t.Errorf("%q %d", r.Text, len(r.Media))
	}
}
