// Package acptest helps tests write ACP clients: Refuse answers every client method an
// agent may call besides session updates and permission questions with an error, so a test
// client embeds it and writes only what it checks.
package acptest

import (
	"context"
	"errors"

	acp "github.com/coder/acp-go-sdk"
)

// ErrRefused is what Refuse answers.
var ErrRefused = errors.New("the test client offers no file system or terminals")

// Refuse refuses the client's file system and terminals.
type Refuse struct{}

func (Refuse) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, ErrRefused
}
func (Refuse) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, ErrRefused
}
func (Refuse) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, ErrRefused
}
func (Refuse) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, ErrRefused
}
func (Refuse) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, ErrRefused
}
func (Refuse) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, ErrRefused
}
func (Refuse) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, ErrRefused
}
