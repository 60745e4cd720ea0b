package agent

import (
	"errors"
	"testing"
)

// TestAttach: images of the types the model reads go with the next prompt, all or none.
func TestAttach(t *testing.T) {
	png := Image{MIMEType: "image/png", Data: []byte("png")}
	tests := []struct {
		name   string
		images []Image
		ok     bool
	}{
		{"one png", []Image{png}, true},
		{"png and jpeg", []Image{png, {MIMEType: "image/jpeg", Data: []byte("jpg")}}, true},
		{"a tiff refuses all", []Image{png, {MIMEType: "image/tiff", Data: []byte("tif")}}, false},
		{"too big", []Image{{MIMEType: "image/png", Data: make([]byte, AttachMax+1)}}, false},
		{"none", nil, true},
	}
	for _, tt := range tests {
		s := &Session{}
		err := s.Attach(tt.images...)
		var ae *AttachError
		if (err == nil) != tt.ok || (err != nil && !errors.As(err, &ae)) {
			t.Errorf("%s: %v", tt.name, err)
		}
		if want := map[bool]int{true: len(tt.images), false: 0}[tt.ok]; len(s.attached) != want {
			t.Errorf("%s: %d attached, want %d", tt.name, len(s.attached), want)
		}
	}
}
