package cli

import (
	"encoding/json"

	"github.com/gemhost/gem/sdk"
)

// gem -p -o stream-json prints the turn's sdk.Events, one JSON line each: an Event marshals
// to the line Gemini CLI's -o stream-json writes for it (sdk/streamjson.go), so scripts
// written for gemini -o stream-json read gem's. What gem adds is in the result's error: the
// exit code and gem's hint (turnFailure).

// promptError is a failed turn as Gemini CLI's JsonError: type, message, code (the exit
// code), and gem's hint when it has one.
type promptError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Code    int    `json:"code"`
	Hint    string `json:"hint,omitempty"`
}

// promptErrorJSON is a failed turn as Gemini CLI's JsonError.
func promptErrorJSON(err error) *promptError {
	f := errorJSON(err)
	return &promptError{Type: sdk.ErrorType(err), Message: f.Error.Message, Code: f.Error.ExitCode, Hint: f.Error.Hint}
}

// turnFailure is a failed turn's error in a result event: it marshals as promptError.
type turnFailure struct{ error }

func (f turnFailure) Unwrap() error                { return f.error }
func (f turnFailure) MarshalJSON() ([]byte, error) { return json.Marshal(promptErrorJSON(f.error)) }
