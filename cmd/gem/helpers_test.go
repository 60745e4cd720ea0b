package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/gemhost/gem/host/sandbox"
)

// scriptCmds are the testscript commands of gem's CLI tests. They build real archives and
// run a real HTTP server on 127.0.0.1 speaking GitHub's release API.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	// expandenv SRC DST: copy SRC to DST with $VARS of the script's environment expanded.
	"expandenv": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: expandenv src dst")
		}
		data := ts.ReadFile(args[0])
		dst := ts.MkAbs(args[1])
		ts.Check(os.MkdirAll(filepath.Dir(dst), 0o755))
		ts.Check(os.WriteFile(dst, []byte(os.Expand(data, ts.Getenv)), 0o644))
	},
	// cmpnonl FILE WANT: FILE must equal WANT with $VARS expanded and WANT's final newline
	// removed (txtar files always end with one; Gemini CLI's JSON files do not).
	"cmpnonl": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: cmpnonl file want")
		}
		got := ts.ReadFile(args[0])
		want := strings.TrimSuffix(os.Expand(ts.ReadFile(args[1]), ts.Getenv), "\n")
		if (got == want) == neg {
			ts.Fatalf("%s:\n%s\nwant:\n%s", args[0], got, want)
		}
	},
	// mkelf PATH: an executable ELF header for linux/arm64 (or linux/amd64 on arm64 hosts),
	// which this machine cannot run: for exec format errors.
	"mkelf": func(ts *testscript.TestScript, neg bool, args []string) {
		h := make([]byte, 64)
		copy(h, "\x7fELF\x02\x01\x01")
		h[16] = 2              // ET_EXEC
		machine := uint16(183) // EM_AARCH64
		if runtime.GOARCH == "arm64" {
			machine = 62 // EM_X86_64
		}
		h[18], h[19] = byte(machine), byte(machine>>8)
		h[20] = 1  // version
		h[52] = 64 // ehsize
		ts.Check(os.MkdirAll(filepath.Dir(ts.MkAbs(args[0])), 0o755))
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), h, 0o755))
	},
	// killhost CALLS OUT: run `gem tools call --batch`, feed it the JSON lines of CALLS one at
	// a time (each answered before the next), write its answers to OUT, then SIGKILL it and
	// fail unless every plugin process and every job ("pid" in an answer) ends within 5 s.
	"killhost": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: killhost calls out")
		}
		killHost(ts, ts.MkAbs(args[0]), ts.MkAbs(args[1]))
	},
	// tmuxstart SOCKET COMMAND: a detached 160x50 tmux session running COMMAND on a private
	// server, killed when the script ends, whatever happens.
	"tmuxstart": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: tmuxstart socket command")
		}
		sock := ts.MkAbs(args[0])
		ts.Setenv("TMUX", "")
		ts.Check(ts.Exec("tmux", "-S", sock, "new-session", "-d", "-x", "160", "-y", "50", args[1]))
		ts.Defer(func() { exec.Command("tmux", "-S", sock, "kill-server").Run() })
	},
	// tmuxwait SOCKET REGEXP: wait up to 15 s until the tmux pane shows a match (the pane is
	// printed on failure).
	"tmuxwait": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: tmuxwait socket regexp")
		}
		re := regexp.MustCompile(args[1])
		var pane []byte
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			pane, _ = exec.Command("tmux", "-S", ts.MkAbs(args[0]), "capture-pane", "-p", "-S", "-100").Output()
			if re.Match(pane) {
				return
			}
		}
		ts.Fatalf("tmux pane never matched %q:\n%s", args[1], pane)
	},
	// mkarchive DST.(tar.gz|tgz|zip) SRCDIR [PREFIX]: pack SRCDIR, entries under PREFIX/.
	"mkarchive": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) < 2 {
			ts.Fatalf("usage: mkarchive dst srcdir [prefix]")
		}
		prefix := ""
		if len(args) > 2 {
			prefix = args[2] + "/"
		}
		var entries []archiveEntry
		src := ts.MkAbs(args[1])
		ts.Check(filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == src {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			info, _ := d.Info()
			e := archiveEntry{name: prefix + filepath.ToSlash(rel), mode: info.Mode()}
			if info.Mode().IsRegular() {
				e.data, _ = os.ReadFile(p)
			}
			entries = append(entries, e)
			return nil
		}))
		writeArchive(ts, ts.MkAbs(args[0]), entries)
	},
	// mkhostile DST KIND: a hostile archive: slip, absolute, symlink, bomb, device, hardlink,
	// deeplink.
	"mkhostile": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: mkhostile dst kind")
		}
		m := archiveEntry{name: "ext/gemini-extension.json", mode: 0o644, data: []byte(`{"name":"evil","version":"1.0.0"}`)}
		var entries []archiveEntry
		switch args[1] {
		case "slip":
			entries = []archiveEntry{m, {name: "ext/../../escaped.txt", mode: 0o644, data: []byte("pwned")}}
		case "absolute":
			entries = []archiveEntry{m, {name: "/tmp/gem-absolute-escape.txt", mode: 0o644, data: []byte("pwned")}}
		case "symlink":
			entries = []archiveEntry{m, {name: "ext/out", mode: fs.ModeSymlink | 0o777, data: []byte("../../..")}, {name: "ext/out/escaped.txt", mode: 0o644, data: []byte("pwned")}}
		case "bomb":
			entries = []archiveEntry{m, {name: "ext/zeros.bin", mode: 0o644, data: make([]byte, 64<<20)}}
		case "device":
			entries = []archiveEntry{m, {name: "ext/dev", mode: fs.ModeDevice | fs.ModeCharDevice | 0o644}}
		case "hardlink":
			entries = []archiveEntry{m, {name: "ext/passwd", mode: 0o644, hardlink: "/etc/passwd"}}
		case "deeplink":
			// Each link alone stays inside; through "deep -> ." the second leads out.
			entries = []archiveEntry{m, {name: "ext/deep", mode: fs.ModeSymlink | 0o777, data: []byte(".")},
				{name: "ext/deep/deep/deep/GEMINI.md", mode: fs.ModeSymlink | 0o777, data: []byte("../../../home/.ssh/id_rsa")}}
		default:
			ts.Fatalf("unknown hostile kind %q", args[1])
		}
		writeArchive(ts, ts.MkAbs(args[0]), entries)
	},
	// ghserver DIR: serve GitHub's release API from DIR (owner/repo/latest.json,
	// owner/repo/releases.json, owner/repo/tags/TAG.json; files under dl/) and its
	// attestations API (owner/repo/attestations/<sha256 hex>.json), with $SERVER in
	// the JSON replaced by the server's URL; sets GEM_GITHUB_API_URL and GHSERVER; logs each
	// request's path and Authorization header to DIR/requests.log.
	"ghserver": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: ghserver dir")
		}
		dir := ts.MkAbs(args[0])
		var mu sync.Mutex
		var srv *httptest.Server
		srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			f, _ := os.OpenFile(filepath.Join(dir, "requests.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			f.WriteString(r.URL.Path + " auth=" + r.Header.Get("Authorization") + "\n")
			f.Close()
			mu.Unlock()
			p := strings.TrimPrefix(r.URL.Path, "/")
			var file string
			switch {
			case strings.HasPrefix(p, "dl/"):
				http.ServeFile(w, r, filepath.Join(dir, filepath.FromSlash(p)))
				return
			case strings.HasSuffix(p, "/releases/latest"):
				file = strings.TrimSuffix(strings.TrimPrefix(p, "repos/"), "/releases/latest") + "/latest.json"
			case strings.Contains(p, "/releases/tags/"):
				a, tag, _ := strings.Cut(strings.TrimPrefix(p, "repos/"), "/releases/tags/")
				file = a + "/tags/" + tag + ".json"
			case strings.HasSuffix(p, "/releases"):
				file = strings.TrimSuffix(strings.TrimPrefix(p, "repos/"), "/releases") + "/releases.json"
			case strings.Contains(p, "/attestations/sha256:"):
				a, digest, _ := strings.Cut(strings.TrimPrefix(p, "repos/"), "/attestations/sha256:")
				file = a + "/attestations/" + digest + ".json"
			}
			data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(file)))
			if file == "" || err != nil {
				w.WriteHeader(http.StatusNotFound)
				w.Write([]byte(`{"message":"Not Found"}`))
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Write(bytes.ReplaceAll(data, []byte("$SERVER"), []byte(srv.URL)))
		}))
		ts.Defer(srv.Close)
		ts.Setenv("GEM_GITHUB_API_URL", srv.URL)
		ts.Setenv("GHSERVER", srv.URL)
	},
}

type archiveEntry struct {
	name     string
	mode     fs.FileMode
	data     []byte
	hardlink string
}

func writeArchive(ts *testscript.TestScript, dst string, entries []archiveEntry) {
	var buf bytes.Buffer
	if strings.HasSuffix(dst, ".zip") {
		zw := zip.NewWriter(&buf)
		for _, e := range entries {
			h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
			h.SetMode(e.mode)
			if e.mode.IsDir() {
				h.Name += "/"
			}
			w, err := zw.CreateHeader(h)
			ts.Check(err)
			if !e.mode.IsDir() {
				w.Write(e.data)
			}
		}
		ts.Check(zw.Close())
	} else {
		gz := gzip.NewWriter(&buf)
		tw := tar.NewWriter(gz)
		for _, e := range entries {
			h := &tar.Header{Name: e.name, Mode: int64(e.mode.Perm()), Size: int64(len(e.data)), Typeflag: tar.TypeReg}
			switch {
			case e.hardlink != "":
				h.Typeflag, h.Linkname, h.Size = tar.TypeLink, e.hardlink, 0
			case e.mode.IsDir():
				h.Typeflag, h.Size = tar.TypeDir, 0
			case e.mode&fs.ModeSymlink != 0:
				h.Typeflag, h.Linkname, h.Size = tar.TypeSymlink, string(e.data), 0
			case e.mode&fs.ModeDevice != 0:
				h.Typeflag, h.Size = tar.TypeChar, 0
			}
			ts.Check(tw.WriteHeader(h))
			if h.Typeflag == tar.TypeReg {
				tw.Write(e.data)
			}
		}
		ts.Check(tw.Close())
		ts.Check(gz.Close())
	}
	ts.Check(os.MkdirAll(filepath.Dir(dst), 0o755))
	ts.Check(os.WriteFile(dst, buf.Bytes(), 0o644))
}

func killHost(ts *testscript.TestScript, callsFile, outFile string) {
	var gemPath string
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		if st, err := os.Stat(filepath.Join(dir, "gem")); err == nil && !st.IsDir() {
			gemPath = filepath.Join(dir, "gem")
			break
		}
	}
	if gemPath == "" {
		ts.Fatalf("no gem in PATH")
	}
	cmd := exec.Command(gemPath, "tools", "call", "--yes", "--batch")
	cmd.Dir = ts.Getenv("WORK")
	for _, k := range []string{"PATH", "HOME", "GEM_HOME", "GEMINI_CLI_HOME", "GEM_ENGINE", "TMPDIR"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	stdin, err := cmd.StdinPipe()
	ts.Check(err)
	stdout, err := cmd.StdoutPipe()
	ts.Check(err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	ts.Check(cmd.Start())
	ts.Defer(func() { cmd.Process.Kill(); cmd.Wait() })
	calls, err := os.ReadFile(callsFile)
	ts.Check(err)
	answers := bufio.NewReader(stdout)
	var out strings.Builder
	pids := map[int]bool{}
	pidRE := regexp.MustCompile(`"pid":(\d+)`)
	for _, line := range strings.Split(strings.TrimSpace(string(calls)), "\n") {
		fmt.Fprintln(stdin, line)
		answer, err := answers.ReadString('\n')
		if err != nil {
			ts.Fatalf("no answer to %s: %v\nstderr: %s", line, err, stderr.String())
		}
		out.WriteString(answer)
		// The pids a plugin reports are its own PID namespace's when it has one: meaningless
		// here (the descendant walk below and noproc in the script cover those jobs).
		if ns, _ := sandbox.Namespaces(); !ns {
			for _, m := range pidRE.FindAllStringSubmatch(answer, -1) {
				pid, _ := strconv.Atoi(m[1])
				pids[pid] = true
			}
		}
	}
	ts.Check(os.WriteFile(outFile, []byte(out.String()), 0o644))
	// Every descendant of gem: plugins, their jobs, the jobs' children.
	for queue := []int{cmd.Process.Pid}; len(queue) > 0; queue = queue[1:] {
		for _, child := range childrenOf(queue[0]) {
			pids[child] = true
			queue = append(queue, child)
		}
	}
	if len(pids) == 0 {
		ts.Fatalf("no plugin or job process to watch")
	}
	ts.Check(cmd.Process.Signal(syscall.SIGKILL))
	cmd.Wait()
	var alive []int
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		alive = alive[:0]
		for pid := range pids {
			if processAlive(pid) {
				alive = append(alive, pid)
			}
		}
		if len(alive) == 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, pid := range alive {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		ts.Logf("survivor %d: %s", pid, strings.ReplaceAll(string(cmdline), "\x00", " "))
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if len(alive) > 0 {
		ts.Fatalf("%d process(es) outlived the killed host", len(alive))
	}
	ts.Logf("watched %d processes (plugins and jobs); none outlived the host", len(pids))
}

// childrenOf lists the pids whose parent is pid (from /proc).
func childrenOf(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, _ := procField(child, 3); ppid == pid {
			out = append(out, child)
		}
	}
	return out
}

// procField reads field i (0-based, after the command) of /proc/pid/stat as a number,
// or the state letter's code for i == 2.
func procField(pid, i int) (int, string) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1, ""
	}
	s := string(data)
	if j := strings.LastIndexByte(s, ')'); j >= 0 {
		s = s[j+2:]
	}
	f := strings.Fields(s)
	if len(f) <= i-2 {
		return -1, ""
	}
	n, _ := strconv.Atoi(f[i-2])
	return n, f[i-2]
}

// processAlive: it exists and is not a zombie (a zombie has ended; its reaper may be slow).
func processAlive(pid int) bool {
	_, state := procField(pid, 2)
	return state != "" && state != "Z"
}
