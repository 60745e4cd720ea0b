// Package host is gem's runtime. Its subpackages own running what extensions bring:
// commands (the slash-command table and `gem run`), sandbox (the one launcher every
// subprocess goes through), binfmt (naming a binary's platform for clear exec errors).
// host never prints: it returns results and takes interfaces for confirmation and output.
package host
