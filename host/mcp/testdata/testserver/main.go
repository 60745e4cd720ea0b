// Command testserver is a real MCP server (stdio, or streamable HTTP with -http) whose
// behaviour the tests choose with -mode: ok (tools echo, slow, progress, grow, crash), hang
// (never answers), garbage (writes non-JSON to stdout), die (exits at once with a message).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoArgs struct {
	Text string `json:"text"`
}

type slowArgs struct {
	Millis int `json:"millis"`
}

type stepsArgs struct {
	Steps int `json:"steps"`
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "testserver", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes text", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
			if a.Text == "fail" {
				return nil, nil, fmt.Errorf("asked to fail")
			}
			return text("echo: " + a.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Sleeps"},
		func(ctx context.Context, _ *mcp.CallToolRequest, a slowArgs) (*mcp.CallToolResult, any, error) {
			select {
			case <-time.After(time.Duration(a.Millis) * time.Millisecond):
				return text("slept"), nil, nil
			case <-ctx.Done():
				log.Printf("slow: cancelled")
				return nil, nil, ctx.Err()
			}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "progress", Description: "Reports progress"},
		func(ctx context.Context, req *mcp.CallToolRequest, a stepsArgs) (*mcp.CallToolResult, any, error) {
			for i := 1; i <= a.Steps; i++ {
				if tok := req.Params.GetProgressToken(); tok != nil {
					req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: float64(a.Steps), Message: fmt.Sprintf("step %d", i)})
				}
				time.Sleep(5 * time.Millisecond) // work between steps, as a real tool does

			}
			return text("done"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "grow", Description: "Adds a tool named by text"},
		func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
			mcp.AddTool(s, &mcp.Tool{Name: a.Text, Description: "grown"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return text("grown"), nil, nil
			})
			return text("grew " + a.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exits the server"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "boom: the disk is on fire")
			os.Exit(3)
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "pid", Description: "Returns the server's pid"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return text(fmt.Sprint(os.Getpid())), nil, nil
		})
	return s
}

func main() {
	log.SetFlags(0)
	mode := flag.String("mode", "ok", "ok, hang, garbage or die")
	httpAddr := flag.String("http", "", "serve streamable HTTP at http://ADDR/mcp")
	sseAddr := flag.String("sse", "", "serve SSE at http://ADDR/sse")
	delay := flag.Duration("delay", 0, "wait this long before serving (a server slow to boot, as node or uvx are)")
	work := flag.Duration("work", 0, "work (use the CPU) this long before serving, as a launcher unpacking its package does")
	progress := flag.Duration("progress", 0, "say it downloads (uv's progress lines on stderr) this long before serving")
	flood := flag.Duration("flood", 0, "write other lines to stderr as fast as it can this long before serving")
	grow := flag.String("grow", "", "download into this folder (a file every 200 ms) for -growfor before serving, saying nothing")
	growFor := flag.Duration("growfor", 0, "how long -grow goes on")
	flag.Parse()
	time.Sleep(*delay)
	for i, end := 0, time.Now().Add(*progress); time.Now().Before(end); i++ {
		fmt.Fprintf(os.Stderr, "Downloading package-%d (%d KiB)\n", i, 100+i)
		time.Sleep(200 * time.Millisecond)
	}
	for i, end := 0, time.Now().Add(*flood); time.Now().Before(end); i++ {
		fmt.Fprintf(os.Stderr, "debug: still warming up the cache, step %d of many\n", i)
	}
	for i, end := 0, time.Now().Add(*growFor); *grow != "" && time.Now().Before(end); i++ {
		os.WriteFile(filepath.Join(*grow, fmt.Sprintf("blob-%d", i)), make([]byte, 4096), 0o644)
		time.Sleep(200 * time.Millisecond)
	}
	for end := time.Now().Add(*work); time.Now().Before(end); {
		busy := 0
		for i := range 1_000_000 {
			busy += i
		}
		_ = busy
	}
	switch *mode {
	case "hang":
		fmt.Fprintln(os.Stderr, "warming up forever")
		select {}
	case "garbage":
		fmt.Println("this is not JSON-RPC")
		fmt.Fprintln(os.Stderr, "oops, printed to stdout")
		select {}
	case "die":
		fmt.Fprintln(os.Stderr, "cannot open the database: permission denied")
		os.Exit(2)
	}
	if *httpAddr != "" {
		ln, err := net.Listen("tcp", *httpAddr)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("http://%s/mcp\n", ln.Addr())
		mux := http.NewServeMux()
		server := newServer()
		mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
			if r.Header.Get("X-Test-Token") != "sesame" {
				return nil
			}
			return server
		}, nil))
		log.Fatal(http.Serve(ln, mux))
	}
	if *sseAddr != "" {
		ln, err := net.Listen("tcp", *sseAddr)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("http://%s/sse\n", ln.Addr())
		server := newServer()
		mux := http.NewServeMux()
		mux.Handle("/sse", mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return server }, nil))
		log.Fatal(http.Serve(ln, mux))
	}
	if err := newServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
