package agent

import (
	"testing"

	"google.golang.org/genai"
)

func TestCiteGrounding(t *testing.T) {
	web := func(title, uri string) *genai.GroundingChunk {
		return &genai.GroundingChunk{Web: &genai.GroundingChunkWeb{Title: title, URI: uri}}
	}
	support := func(end int32, chunks ...int32) *genai.GroundingSupport {
		return &genai.GroundingSupport{Segment: &genai.Segment{EndIndex: end}, GroundingChunkIndices: chunks}
	}
	tests := []struct {
		name, text string
		meta       *genai.GroundingMetadata
		want       string
	}{
		{"no metadata", "plain", nil, "plain"},
		{"no chunks", "plain", &genai.GroundingMetadata{GroundingSupports: []*genai.GroundingSupport{support(2, 0)}}, "plain"},
		{"markers and sources", "Go is fast. It is simple.",
			&genai.GroundingMetadata{GroundingChunks: []*genai.GroundingChunk{web("go.dev", "https://go.dev"), web("", "")},
				GroundingSupports: []*genai.GroundingSupport{support(11, 0), support(25, 0, 1)}},
			"Go is fast.[1] It is simple.[1][2]\n\nSources:\n[1] go.dev (https://go.dev)\n[2] Untitled (No URI)"},
		{"byte offsets past multibyte text", "Café ok.",
			&genai.GroundingMetadata{GroundingChunks: []*genai.GroundingChunk{web("a", "https://a")}, GroundingSupports: []*genai.GroundingSupport{support(5, 0)}},
			"Café[1] ok.\n\nSources:\n[1] a (https://a)"},
		{"one offset, later support first; an offset past the end clamped", "ab",
			&genai.GroundingMetadata{GroundingChunks: []*genai.GroundingChunk{web("a", "u"), web("b", "v")},
				GroundingSupports: []*genai.GroundingSupport{support(1, 0), support(1, 1), support(99, 1), {GroundingChunkIndices: []int32{0}}}},
			"a[2][1]b[2]\n\nSources:\n[1] a (u)\n[2] b (v)"},
	}
	for _, tt := range tests {
		if got := citeGrounding(tt.text, tt.meta); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}
