package signature

import (
	"fmt"
	"os"

	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/tuf"
)

// Load is the verifier gem uses: the trusted root in the file path when one is set (an
// administrator's or an air-gapped machine's trusted_root.json, security.sigstoreTrustedRoot),
// else Sigstore's public-good root, fetched from its TUF repository (whose own root is built
// into sigstore-go) and cached in cacheDir for a day.
func Load(path, cacheDir string) (*Verifier, error) {
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, &RootError{Err: err}
		}
		v, err := NewVerifier(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return v, nil
	}
	opts := tuf.DefaultOptions().WithCachePath(cacheDir).WithCacheValidity(1)
	tr, err := root.FetchTrustedRootWithOptions(opts)
	if err != nil {
		return nil, &RootError{Err: fmt.Errorf("fetching Sigstore's public-good trusted root from %s: %w", opts.RepositoryBaseURL, err)}
	}
	return NewVerifierFor(tr)
}
