// Command flooragent is the least an ACP agent can do for a prompt, the floor
// BenchmarkACPFirstChunk measures gem acp and Gemini CLI against: it reads JSON-RPC lines on
// stdin, answers initialize and session/new, and for session/prompt makes one streamed
// streamGenerateContent request to GEM_GEMINI_BASE_URL and writes an agent_message_chunk
// per chunk — no protocol library, no model request worth the name, no session. Its time
// is the process, pipe and HTTP hops any agent pays on the machine that runs it.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
)

func main() {
	base := os.Getenv("GEM_GEMINI_BASE_URL")
	in := bufio.NewReader(os.Stdin)
	out := func(s string) { os.Stdout.WriteString(s + "\n") }
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		switch m.Method {
		case "initialize":
			out(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"protocolVersion":1}}`)
		case "session/new":
			out(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"sessionId":"floor"}}`)
		case "session/prompt":
			body := []byte(`{"contents":[{"role":"user","parts":[{"text":"hello"}]}]}`)
			req, _ := http.NewRequest(http.MethodPost, base+"/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", bytes.NewReader(body))
			req.Header.Set("x-goog-api-key", os.Getenv("GEMINI_API_KEY"))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				out(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32603,"message":"the model cannot be reached"}}`)
				continue
			}
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				if bytes.HasPrefix(sc.Bytes(), []byte("data:")) {
					out(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"floor","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Hello."}}}}`)
				}
			}
			resp.Body.Close()
			out(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"stopReason":"end_turn"}}`)
		case "":
		default:
			if len(m.ID) > 0 {
				out(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"not served"}}`)
			}
		}
	}
}
