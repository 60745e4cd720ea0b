# Included by each sample extension's Makefile (which sets NAME, PLATFORMS and maybe SRC):
# builds ./cmd/$(NAME) into bin/<platform>/<arch>/$(NAME) with Node's platform names, for each
# GOOS/GOARCH/node-os/node-arch of PLATFORMS, when a file of SRC is newer than the binary.
GO ?= go
SRC ?= $(wildcard cmd/$(NAME)/*.go)
LINUX := linux/amd64/linux/x64 linux/arm64/linux/arm64
UNIX := $(LINUX) darwin/amd64/darwin/x64 darwin/arm64/darwin/arm64
ALL := $(UNIX) windows/amd64/win32/x64 windows/arm64/win32/arm64

all:
	@for p in $(PLATFORMS); do \
	  set -- $$(echo $$p | tr / ' '); ext=; [ $$1 = windows ] && ext=.exe; \
	  out=bin/$$3/$$4/$(NAME)$$ext; \
	  if [ ! -f $$out ] || [ -n "$$(find $(SRC) -newer $$out)" ]; then \
	    CGO_ENABLED=0 GOOS=$$1 GOARCH=$$2 $(GO) build -trimpath -ldflags '-s -w' -o $$out ./cmd/$(NAME) || exit 1; fi; \
	done
