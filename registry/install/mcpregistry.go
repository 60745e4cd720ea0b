package install

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gemhost/gem/internal/filehash"
	"github.com/gemhost/gem/internal/fsx"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/manifest/version"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/mcpregistry"
)

// BundleHashError is an mcpb bundle whose SHA-256 is not the one its registry entry gives.
type BundleHashError struct{ URL, Want, Got string }

func (e *BundleHashError) Error() string {
	return fmt.Sprintf("the mcpb bundle %s has SHA-256 %s, but its registry entry says %s: it is not installed", e.URL, e.Got, e.Want)
}

// MCPRegistrySource is a server of the MCP registry, installed as an extension with one MCP
// server (package mcpregistry says what each kind becomes). Its install metadata has type
// "mcp-registry", the server's name as source and a pinned version as ref.
type MCPRegistrySource struct {
	Fetcher *Fetcher
	Client  *mcpregistry.Client
	Name    string
	Version string // "" for the latest
}

func (s *MCPRegistrySource) Fetch(ctx context.Context, staging string, _ Options) (*Fetched, error) {
	server, err := s.Client.Get(ctx, s.Name, s.Version)
	if err != nil {
		return nil, err
	}
	plan, err := mcpregistry.Convert(server)
	if err != nil {
		return nil, err
	}
	tree := filepath.Join(staging, "tree")
	if err := os.MkdirAll(tree, 0o755); err != nil {
		return nil, err
	}
	doc := plan.Manifest
	fetched := &Fetched{Dir: tree, Meta: registry.InstallMetadata{Source: s.Name, Type: "mcp-registry", Ref: s.Version}}
	if plan.Bundle != nil {
		if doc, err = s.fetchBundle(ctx, plan, staging, tree); err != nil {
			return nil, err
		}
		fetched.Archive, fetched.Asset = filepath.Join(staging, "bundle.zip"), plan.Bundle.URL
	}
	for _, n := range plan.Notes {
		if s.Fetcher.Progress != nil {
			fmt.Fprintf(s.Fetcher.Progress, "note: %s\n", n)
		}
	}
	entry, _ := json.MarshalIndent(server, "", "  ")
	if err := os.WriteFile(filepath.Join(tree, "server.json"), entry, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tree, manifest.FileName), doc, 0o644); err != nil {
		return nil, err
	}
	return fetched, nil
}

// fetchBundle downloads the mcpb bundle, checks its SHA-256 before anything of it is
// unpacked, unpacks it into tree and returns the manifest that runs its server.
func (s *MCPRegistrySource) fetchBundle(ctx context.Context, plan *mcpregistry.Plan, staging, tree string) ([]byte, error) {
	file := filepath.Join(staging, "bundle.zip")
	if err := s.Fetcher.download(ctx, plan.Bundle.URL, file); err != nil {
		return nil, err
	}
	got, err := filehash.SHA256(file)
	if err != nil {
		return nil, err
	}
	if got != plan.Bundle.SHA256 {
		return nil, &BundleHashError{URL: plan.Bundle.URL, Want: plan.Bundle.SHA256, Got: got}
	}
	bundle := filepath.Join(tree, mcpregistry.BundleDir)
	if err := os.MkdirAll(bundle, 0o755); err != nil {
		return nil, err
	}
	if err := Extract(file, bundle, DefaultArchiveLimits); err != nil {
		return nil, err
	}
	mj, err := fsx.ReadBeneath(bundle, "manifest.json", 1<<20)
	if err != nil {
		return nil, fmt.Errorf("the mcpb bundle %s: %w", plan.Bundle.URL, err)
	}
	server, settings, err := mcpregistry.BundleServer(mj)
	if err != nil {
		return nil, fmt.Errorf("the mcpb bundle %s: %w", plan.Bundle.URL, err)
	}
	var doc map[string]any
	json.Unmarshal(plan.Manifest, &doc)
	doc["mcpServers"] = map[string]any{doc["name"].(string): server}
	if len(settings) > 0 {
		doc["settings"] = settings
	}
	text, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := mcpregistry.CheckVariables(plan.Bundle.URL, text); err != nil {
		return nil, err
	}
	return text, nil
}

// Newer: the registry's latest version is above the installed one (a pinned version never
// is newer).
func (s *MCPRegistrySource) Newer(ctx context.Context, x *registry.Extension, meta registry.InstallMetadata) (bool, string, error) {
	if meta.Ref != "" {
		return false, "", nil
	}
	server, err := s.Client.Get(ctx, s.Name, "")
	if err != nil {
		return false, "", err
	}
	cmp, _ := version.Compare(server.Version, x.Version)
	return cmp > 0, server.Version, nil
}
