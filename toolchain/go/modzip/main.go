// Command modzip writes a Go module, from its folder, as a GOPROXY=file:// folder holds it:
// <out>/<module path>/@v/{list,<version>.info,<version>.mod,<version>.zip}, the module zip made by
// golang.org/x/mod/zip (the code the go command checks a download with, so what it writes is what
// `go get` accepts). The release's Go SDK (toolchain/release/goModule.ts) is made with it: a
// program then gets the SDK with `GOPROXY=file://<out>,…` and no clone of the repository.
//
//	go run ./modzip -dir ../../sdk/go -version v0.3.0 -time 2026-11-27T00:00:00Z -out <folder>
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

func main() {
	dir := flag.String("dir", "", "the module's folder (with its go.mod)")
	version := flag.String("version", "", "the module's version, e.g. v0.3.0")
	when := flag.String("time", "", "the version's time, RFC 3339 (the .info file's Time)")
	out := flag.String("out", "", "the GOPROXY folder to write into")
	flag.Parse()
	if err := write(*dir, *version, *when, *out); err != nil {
		fmt.Fprintln(os.Stderr, "modzip:", err)
		os.Exit(1)
	}
}

func write(dir, version, when, out string) error {
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	path := modfile.ModulePath(gomod)
	mv := module.Version{Path: path, Version: version}
	if err := module.Check(path, version); err != nil {
		return err
	}
	escaped, err := module.EscapePath(path)
	if err != nil {
		return err
	}
	at := filepath.Join(out, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return err
	}
	z, err := os.Create(filepath.Join(at, version+".zip"))
	if err != nil {
		return err
	}
	if err := zip.CreateFromDir(z, mv, dir); err != nil {
		z.Close()
		return err
	}
	if err := z.Close(); err != nil {
		return err
	}
	info, _ := json.Marshal(map[string]string{"Version": version, "Time": when})
	files := map[string][]byte{version + ".info": info, version + ".mod": gomod, "list": []byte(version + "\n")}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(at, name), data, 0o644); err != nil {
			return err
		}
	}
	fmt.Println(filepath.Join(at, version+".zip"))
	return nil
}
