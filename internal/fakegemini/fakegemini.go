// Package fakegemini is a deterministic stand-in for the Gemini API (generateContent and
// streamGenerateContent?alt=sse, the real JSON wire format) for tests: each request gets the
// next scripted reply, and every request is recorded for assertions.
//
// A script is a JSON object {"replies": [reply, …]}; a reply is either a list of response
// chunks (GenerateContentResponse objects, sent as SSE events for streaming requests), or an
// object {"status": 500, "body": {...}} for an error, {"raw": "text"} for a malformed body,
// or {"delayMs": N, "chunks": [...]} to wait before answering (for cancellation). A chunk is
// the API's JSON as is, so a grounded answer (google_web_search's request, with
// tools [{"googleSearch": {}}]) carries its candidate's groundingMetadata (groundingChunks,
// groundingSupports) as the real API sends it.
package fakegemini

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Reply is one scripted answer.
type Reply struct {
	Chunks  []json.RawMessage
	Status  int
	Body    json.RawMessage
	Raw     string
	DelayMs int
}

func (r *Reply) UnmarshalJSON(data []byte) error {
	if strings.HasPrefix(strings.TrimSpace(string(data)), "[") {
		return json.Unmarshal(data, &r.Chunks)
	}
	var o struct {
		Status  int               `json:"status"`
		Body    json.RawMessage   `json:"body"`
		Raw     string            `json:"raw"`
		DelayMs int               `json:"delayMs"`
		Chunks  []json.RawMessage `json:"chunks"`
	}
	if err := json.Unmarshal(data, &o); err != nil {
		return err
	}
	*r = Reply{Chunks: o.Chunks, Status: o.Status, Body: o.Body, Raw: o.Raw, DelayMs: o.DelayMs}
	return nil
}

// Request is one recorded request.
type Request struct {
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Query  string          `json:"query"`
	APIKey string          `json:"apiKey"`
	Body   json.RawMessage `json:"body"`
}

// Server is a running fake.
type Server struct {
	URL      string
	mu       sync.Mutex
	replies  []Reply
	Requests []Request
	record   string // folder for request-N.json, or ""
	again    *Reply // the reply once the script is spent (SetDefault), or nil: an error
	srv      *http.Server
}

// SetDefault makes r the reply to every request after the script's last (benchmarks,
// whose number of requests is not known before).
func (s *Server) SetDefault(r Reply) {
	s.mu.Lock()
	s.again = &r
	s.mu.Unlock()
}

// Start serves replies on 127.0.0.1; requests are also written to recordDir when set.
func Start(replies []Reply, recordDir string) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String() + "/", replies: replies, record: recordDir}
	s.srv = &http.Server{Handler: s}
	go s.srv.Serve(ln)
	return s, nil
}

// LoadScript reads a script file.
func LoadScript(path string) ([]Reply, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var script struct {
		Replies []Reply `json:"replies"`
	}
	if err := json.Unmarshal(data, &script); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return script.Replies, nil
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, APIKey: r.Header.Get("x-goog-api-key"), Body: body}
	s.mu.Lock()
	s.Requests = append(s.Requests, req)
	n := len(s.Requests)
	var reply *Reply
	if len(s.replies) > 0 {
		reply = &s.replies[0]
		s.replies = s.replies[1:]
	} else {
		reply = s.again
	}
	s.mu.Unlock()
	if s.record != "" {
		os.MkdirAll(s.record, 0o755)
		var pretty any
		if json.Unmarshal(body, &pretty) == nil {
			req.Body, _ = json.MarshalIndent(pretty, "", "  ")
		}
		data, _ := json.MarshalIndent(req, "", "  ")
		os.WriteFile(filepath.Join(s.record, fmt.Sprintf("request-%d.json", n)), data, 0o644)
	}
	if reply == nil {
		http.Error(w, `{"error":{"code":500,"message":"fakegemini: no reply left in the script","status":"INTERNAL"}}`, 500)
		return
	}
	if reply.DelayMs > 0 {
		select {
		case <-time.After(time.Duration(reply.DelayMs) * time.Millisecond):
		case <-r.Context().Done():
			return
		}
	}
	switch {
	case reply.Status != 0:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.Status)
		w.Write(reply.Body)
	case reply.Raw != "":
		if strings.Contains(r.URL.RawQuery, "alt=sse") {
			w.Header().Set("Content-Type", "text/event-stream")
		}
		io.WriteString(w, reply.Raw)
	case strings.Contains(r.URL.RawQuery, "alt=sse"):
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range reply.Chunks {
			fmt.Fprintf(w, "data: %s\r\n\r\n", compact(c))
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
		}
	default:
		w.Header().Set("Content-Type", "application/json")
		if len(reply.Chunks) > 0 {
			w.Write(reply.Chunks[len(reply.Chunks)-1])
		}
	}
}

func compact(m json.RawMessage) string {
	var v any
	if json.Unmarshal(m, &v) != nil {
		return string(m)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Chunks is a streamed reply of one chunk per part (each part's JSON, as Text and Call make
// them), every chunk finishing with STOP.
func Chunks(parts ...string) Reply {
	var r Reply
	for _, p := range parts {
		r.Chunks = append(r.Chunks, json.RawMessage(`{"candidates":[{"content":{"role":"model","parts":[`+p+`]},"finishReason":"STOP"}]}`))
	}
	return r
}

// Text is the JSON of a text part.
func Text(s string) string { b, _ := json.Marshal(s); return `{"text":` + string(b) + `}` }

// Call is the JSON of a function call part with id c1; args is the arguments' JSON.
func Call(name, args string) string {
	return `{"functionCall":{"id":"c1","name":"` + name + `","args":` + args + `}}`
}
