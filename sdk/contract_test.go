package sdk_test

import (
	"context"
	"iter"

	"github.com/gemhost/gem/sdk"
)

// The SDK's contract (issue 48): programs outside the repository are written against these
// names and signatures, so a change to one fails this file's compilation before it breaks
// them (cmd/gem/testdata/script/sdk_module.txtar builds such a program too).
var (
	_ func(context.Context, sdk.Options) (*sdk.Agent, error)                            = sdk.NewAgent
	_ func(*sdk.Agent, context.Context) (*sdk.Session, error)                           = (*sdk.Agent).Session
	_ func(*sdk.Session, context.Context, string) (*sdk.Result, error)                  = (*sdk.Session).Send
	_ func(*sdk.Session, context.Context, string) iter.Seq2[sdk.Event, error]           = (*sdk.Session).SendStream
	_ func(*sdk.Session) *sdk.Result                                                    = (*sdk.Session).LastResult
	_ func(string, string, func(sdk.SessionContext, struct{}) (string, error)) sdk.Tool = sdk.NewTool[struct{}, string]
	_ func(string) sdk.Instruction                                                      = sdk.Static
	_ func(func(sdk.SessionContext) string) sdk.Instruction                             = sdk.Dynamic
	_                                                                                   = sdk.Options{Cwd: "", Instructions: []sdk.Instruction{}, Tools: []sdk.Tool{}, Settings: sdk.NoSettings,
		Ask: func(context.Context, sdk.Question) (sdk.Answer, error) { return sdk.Answer{}, nil }}
	_ context.Context                                            = sdk.SessionContext(nil)
	_ func(sdk.SessionContext, sdk.Question) (sdk.Answer, error) = sdk.SessionContext.Ask
	_ func(sdk.SessionContext, string, string) (bool, error)     = sdk.SessionContext.Confirm
)
