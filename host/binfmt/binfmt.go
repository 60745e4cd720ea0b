// Package binfmt names the operating system and architecture a binary was built for, from
// its ELF, Mach-O or PE header, so "exec format error" can say what is wrong.
package binfmt

import (
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"fmt"
	"os"
)

// Describe returns "linux/amd64"-style names (Go's) for the binary at path, or a short
// description of what it is when it is not a known executable.
func Describe(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "unreadable: " + err.Error()
	}
	defer f.Close()
	var magic [4]byte
	if _, err := f.ReadAt(magic[:], 0); err != nil {
		return "too short to be a program"
	}
	switch {
	case string(magic[:]) == "\x7fELF":
		e, err := elf.NewFile(f)
		if err != nil {
			return "a damaged ELF file"
		}
		return "linux/" + elfArch(e.Machine)
	case magic[0] == 'M' && magic[1] == 'Z':
		p, err := pe.NewFile(f)
		if err != nil {
			return "a damaged PE file"
		}
		switch p.Machine {
		case pe.IMAGE_FILE_MACHINE_AMD64:
			return "windows/amd64"
		case pe.IMAGE_FILE_MACHINE_ARM64:
			return "windows/arm64"
		case pe.IMAGE_FILE_MACHINE_I386:
			return "windows/386"
		}
		return fmt.Sprintf("windows/machine-0x%x", p.Machine)
	case magic[0] == 0xcf || magic[0] == 0xce || magic[3] == 0xcf || magic[0] == 0xca:
		m, err := macho.NewFile(f)
		if err != nil {
			return "a Mach-O file (universal or damaged)"
		}
		switch m.Cpu {
		case macho.CpuAmd64:
			return "darwin/amd64"
		case macho.CpuArm64:
			return "darwin/arm64"
		}
		return "darwin/" + m.Cpu.String()
	case magic[0] == '#' && magic[1] == '!':
		return "a script"
	}
	return "not a program this machine can run"
}

func elfArch(m elf.Machine) string {
	switch m {
	case elf.EM_X86_64:
		return "amd64"
	case elf.EM_AARCH64:
		return "arm64"
	case elf.EM_386:
		return "386"
	case elf.EM_ARM:
		return "arm"
	case elf.EM_RISCV:
		return "riscv64"
	}
	return m.String()
}
