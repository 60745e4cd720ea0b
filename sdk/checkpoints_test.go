package sdk_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemhost/gem/sdk"
)

// TestCheckpointRestore: with Options.Checkpointing, the model's write_file is preceded by a
// checkpoint; Restore brings the file back and the conversation to the start of that turn,
// so the next request has the turn before it and not the edit's.
func TestCheckpointRestore(t *testing.T) {
	srv, getenv := fakeModel(t, chunks(text("Noted.")),
		chunks(call("write_file", `{"file_path":"notes.txt","content":"changed"}`)), chunks(text("Done.")),
		chunks(text("Back.")))
	ctx := context.Background()
	proj := filepath.Join(getenv("HOME"), "proj")
	os.WriteFile(filepath.Join(proj, "notes.txt"), []byte("hello"), 0o644)
	s := checkpointingSession(t, ctx, proj, getenv)
	for _, p := range []string{"the notes say hello", "edit the notes"} {
		if _, err := s.Send(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(proj, "notes.txt")); string(data) != "changed" {
		t.Fatalf("the edit was not made: %q", data)
	}
	list, err := s.Checkpoints()
	if err != nil || len(list) != 1 || list[0].Tool != "write_file" || list[0].File != "notes.txt" || list[0].Prompt != "edit the notes" {
		t.Fatalf("Checkpoints = %+v, %v", list, err)
	}
	if _, err := s.Restore(ctx, list[0].ID); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(proj, "notes.txt")); string(data) != "hello" {
		t.Errorf("notes.txt after Restore = %q, want hello", data)
	}
	if _, err := s.Send(ctx, "what now?"); err != nil {
		t.Fatal(err)
	}
	last := string(srv.Requests[len(srv.Requests)-1].Body)
	if !strings.Contains(last, "the notes say hello") || strings.Contains(last, "edit the notes") || !strings.Contains(last, "what now?") {
		t.Errorf("the conversation was not brought back to before the edit's turn: %s", last)
	}
	if _, err := s.Restore(ctx, "nope"); err == nil {
		t.Error("Restore of an unknown checkpoint succeeded")
	}
}

// TestCheckpointFailsEditRefused: when the checkpoint cannot be taken (its folder is a file),
// the edit is not made and the model is told why.
func TestCheckpointFailsEditRefused(t *testing.T) {
	_, getenv := fakeModel(t, chunks(call("write_file", `{"file_path":"notes.txt","content":"changed"}`)), chunks(text("Oh.")))
	ctx := context.Background()
	home := getenv("HOME")
	proj := filepath.Join(home, "proj")
	os.WriteFile(filepath.Join(proj, "notes.txt"), []byte("hello"), 0o644)
	os.MkdirAll(filepath.Join(home, ".gem"), 0o755)
	os.WriteFile(filepath.Join(home, ".gem", "history"), nil, 0o644) // a file: no checkpoint folder under it
	s := checkpointingSession(t, ctx, proj, getenv)
	res, err := s.Send(ctx, "edit the notes")
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(proj, "notes.txt")); string(data) != "hello" {
		t.Errorf("the edit was made without its checkpoint: %q", data)
	}
	if len(res.ToolCalls) != 1 || !strings.Contains(res.ToolCalls[0].Output+errText(res.ToolCalls[0].Err), "the checkpoint before this edit failed") {
		t.Errorf("tool calls %+v", res.ToolCalls)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// checkpointingSession is a session of an agent in proj with checkpointing on, approving
// every call; closed with the test.
func checkpointingSession(t *testing.T, ctx context.Context, proj string, getenv func(string) string) *sdk.Session {
	t.Helper()
	a, err := sdk.NewAgent(ctx, sdk.Options{Cwd: proj, Getenv: getenv, Settings: sdk.NoSettings, Checkpointing: true,
		Approve: func(context.Context, sdk.ApprovalRequest) (sdk.Decision, error) { return sdk.ApproveOnce, nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	s, err := a.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
