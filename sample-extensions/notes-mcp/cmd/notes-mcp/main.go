// Command notes-mcp is a sample MCP server in Go (the official SDK): a small notebook with
// tools to add, get, list, search and delete notes, and resources for the index and each
// note. gem and Gemini CLI start it over stdio from the extension's manifest; with
// --http ADDR it serves streamable HTTP at http://ADDR/mcp (and --sse ADDR, SSE at
// http://ADDR/sse), printing the URL on stdout once it listens.
//
// Notes are kept in $NOTES_MCP_FILE, else $GEM_HOME/data/notes-mcp/notes.json, else
// ~/.gem/data/notes-mcp/notes.json.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gemhost/gem/sample-extensions/notes-mcp/notes"
)

type addArgs struct {
	Title string   `json:"title" jsonschema:"a short title"`
	Body  string   `json:"body" jsonschema:"the note's text"`
	Tags  []string `json:"tags,omitempty" jsonschema:"labels to find the note by"`
}

type idArgs struct {
	ID int `json:"id" jsonschema:"the note's id"`
}

type listArgs struct {
	Tag string `json:"tag,omitempty" jsonschema:"only notes with this tag"`
}

type searchArgs struct {
	Query string `json:"query" jsonschema:"words that must all appear (title, body or tags)"`
}

type noteList struct {
	Notes []notes.Note `json:"notes"`
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func summary(ns []notes.Note) string {
	if len(ns) == 0 {
		return "no notes"
	}
	var b strings.Builder
	for _, n := range ns {
		fmt.Fprintf(&b, "#%d %s", n.ID, n.Title)
		if len(n.Tags) > 0 {
			fmt.Fprintf(&b, " [%s]", strings.Join(n.Tags, ", "))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func newServer(store *notes.Store) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1.0.0"}, nil)
	yes := true
	mcp.AddTool(s, &mcp.Tool{Name: "add_note", Description: "Adds a note and returns its id"},
		func(_ context.Context, _ *mcp.CallToolRequest, a addArgs) (*mcp.CallToolResult, notes.Note, error) {
			if strings.TrimSpace(a.Title) == "" {
				return nil, notes.Note{}, errors.New("title is empty: give the note a title")
			}
			n, err := store.Add(a.Title, a.Body, a.Tags)
			if err != nil {
				return nil, notes.Note{}, err
			}
			return text(fmt.Sprintf("added note #%d", n.ID)), n, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "get_note", Description: "Returns one note", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, a idArgs) (*mcp.CallToolResult, notes.Note, error) {
			n, err := store.Get(a.ID)
			if err != nil {
				return nil, notes.Note{}, err
			}
			return text(fmt.Sprintf("# %s\n%s", n.Title, n.Body)), n, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "list_notes", Description: "Lists notes, optionally those with a tag", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, a listArgs) (*mcp.CallToolResult, noteList, error) {
			ns, err := store.List(a.Tag)
			if err != nil {
				return nil, noteList{}, err
			}
			return text(summary(ns)), noteList{ns}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "search_notes", Description: "Finds notes containing every word of a query", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, a searchArgs) (*mcp.CallToolResult, noteList, error) {
			ns, err := store.Search(a.Query)
			if err != nil {
				return nil, noteList{}, err
			}
			return text(summary(ns)), noteList{ns}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "delete_note", Description: "Deletes a note", Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes}},
		func(_ context.Context, _ *mcp.CallToolRequest, a idArgs) (*mcp.CallToolResult, any, error) {
			if err := store.Delete(a.ID); err != nil {
				return nil, nil, err
			}
			return text(fmt.Sprintf("deleted note #%d", a.ID)), nil, nil
		})
	s.AddResource(&mcp.Resource{URI: "notes://index", Name: "index", Description: "Every note's id, title and tags", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			ns, err := store.List("")
			if err != nil {
				return nil, err
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: summary(ns)}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "notes://note/{id}", Name: "note", Description: "One note as Markdown", MIMEType: "text/markdown"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			id, err := strconv.Atoi(strings.TrimPrefix(req.Params.URI, "notes://note/"))
			if err != nil {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			n, err := store.Get(id)
			if err != nil {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: "# " + n.Title + "\n\n" + n.Body + "\n"}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "review_notes", Description: "Asks the model to review the notes, optionally those with a tag",
		Arguments: []*mcp.PromptArgument{{Name: "tag", Description: "only notes with this tag"}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			tag := req.Params.Arguments["tag"]
			ns, err := store.List(tag)
			if err != nil {
				return nil, err
			}
			what := "my notes"
			if tag != "" {
				what = "my notes tagged " + tag
			}
			return &mcp.GetPromptResult{Description: "review " + what, Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: "Review " + what + " and suggest what to merge or drop:\n" + summary(ns)}}}}, nil
		})
	return s
}

func storePath() string {
	if p := os.Getenv("NOTES_MCP_FILE"); p != "" {
		return p
	}
	home := os.Getenv("GEM_HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			h = os.TempDir()
		}
		home = filepath.Join(h, ".gem")
	}
	return filepath.Join(home, "data", "notes-mcp", "notes.json")
}

func main() {
	log.SetFlags(0) // logs go to stderr; over stdio, stdout carries the protocol
	log.SetPrefix("notes-mcp: ")
	httpAddr := flag.String("http", "", "serve streamable HTTP on this address (at /mcp) instead of stdio")
	sseAddr := flag.String("sse", "", "serve SSE on this address (at /sse) instead of stdio")
	flag.Parse()
	server := newServer(notes.Open(storePath()))
	switch {
	case *httpAddr != "":
		serveHTTP(*httpAddr, "/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	case *sseAddr != "":
		serveHTTP(*sseAddr, "/sse", mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return server }, nil))
	default:
		if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
	}
}

func serveHTTP(addr, path string, h http.Handler) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(path, h)
	fmt.Printf("http://%s%s\n", ln.Addr(), path)
	log.Fatal(http.Serve(ln, mux))
}
