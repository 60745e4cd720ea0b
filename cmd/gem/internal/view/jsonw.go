package view

import (
	"bufio"
	"strconv"
	"unicode/utf8"
)

// jsonWriter streams the `gem ext list --json` array with the same bytes encoding/json's
// indented encoder would produce, without reflection or one large buffer: listing 1,000
// extensions is on the hot path, and in a fresh process every new heap page costs a fault.
type jsonWriter struct {
	w   *bufio.Writer
	buf []byte
}

func (j *jsonWriter) field(first bool, key string) {
	if !first {
		j.buf = append(j.buf, ',')
	}
	j.buf = append(j.buf, "\n    \""...)
	j.buf = append(j.buf, key...)
	j.buf = append(j.buf, "\": "...)
}

func (j *jsonWriter) str(first bool, key, v string) {
	j.field(first, key)
	j.buf = appendJSONString(j.buf, v)
}

func (j *jsonWriter) boolean(key string, v bool) {
	j.field(false, key)
	j.buf = strconv.AppendBool(j.buf, v)
}

func (j *jsonWriter) object(e *ExtensionJSON, first bool) error {
	j.buf = j.buf[:0]
	if !first {
		j.buf = append(j.buf, ',')
	}
	j.buf = append(j.buf, "\n  {"...)
	j.str(true, "name", e.Name)
	j.str(false, "version", e.Version)
	j.str(false, "description", e.Description)
	j.str(false, "path", e.Path)
	j.str(false, "installPath", e.InstallPath)
	j.str(false, "manifestPath", e.ManifestPath)
	j.str(false, "level", string(e.Level))
	j.str(false, "provider", e.Provider)
	j.str(false, "providerName", e.ProviderName)
	j.boolean("enabled", e.Enabled)
	j.str(false, "enabledBy", e.EnabledBy)
	j.boolean("shadowed", e.Shadowed)
	if e.ShadowedBy != "" {
		j.str(false, "shadowedBy", e.ShadowedBy)
	}
	if e.Conflict {
		j.boolean("conflict", true)
	}
	if e.Blocked != "" {
		j.str(false, "blocked", e.Blocked)
	}
	j.buf = append(j.buf, "\n  }"...)
	_, err := j.w.Write(j.buf)
	return err
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string exactly as encoding/json does (HTML-safe
// escaping of <, > and &, U+2028 and U+2029 escaped, invalid UTF-8 as U+FFFD).
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
