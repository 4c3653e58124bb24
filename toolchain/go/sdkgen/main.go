// Command sdkgen generates the svc provider's Python and Go SDKs from its package schema with the
// code generators of github.com/pulumi/pulumi/pkg/v3 (the version toolchain/go/go.mod pins for the
// CLI), because `pulumi package gen-sdk` hands generation to the target language's host and those
// hosts cannot be installed here. It is what `pulumi package gen-sdk` runs inside those hosts.
//
//	go run ./sdkgen -schema <schema.json> -out <sdk folder> [-pulumi-version v3.x.y]
//
// It writes <out>/python and <out>/go, replacing what a previous run wrote there, except each
// folder's hand-written README.md, which it keeps (the Python package also ships it).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"github.com/blang/semver"

	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// tool is the name written into every generated file's "do not edit" header.
const tool = "pulumi-svc sdkgen"

func main() {
	schemaPath := flag.String("schema", "", "the provider's package schema (JSON)")
	out := flag.String("out", "", "the folder that holds python/ and go/")
	pulumiVersion := flag.String("pulumi-version", "", "the github.com/pulumi/pulumi/sdk/v3 version the Go SDK requires")
	flag.Parse()
	if *schemaPath == "" || *out == "" || *pulumiVersion == "" {
		fail(fmt.Errorf("usage: sdkgen -schema <schema.json> -out <folder> -pulumi-version v3.x.y"))
	}
	if err := run(*schemaPath, *out, *pulumiVersion); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "sdkgen: %v\n", err)
	os.Exit(1)
}

func run(schemaPath, out, pulumiVersion string) error {
	pythonReadme, err := os.ReadFile(filepath.Join(out, "python", "README.md"))
	if err != nil {
		return fmt.Errorf("the Python SDK's README.md (hand-written, kept): %w", err)
	}
	pkg, err := load(schemaPath, string(pythonReadme))
	if err != nil {
		return err
	}
	pyFiles, err := python.GeneratePackage(tool, pkg, nil, noDependencies{})
	if err != nil {
		return fmt.Errorf("python: %w", err)
	}
	goFiles, err := gogen.GeneratePackage(tool, pkg, nil)
	if err != nil {
		return fmt.Errorf("go: %w", err)
	}
	if goFiles["go.mod"], err = pinPulumi(goFiles["go.mod"], pulumiVersion); err != nil {
		return err
	}
	if err := write(filepath.Join(out, "python"), pyFiles); err != nil {
		return err
	}
	return write(filepath.Join(out, "go"), goFiles)
}

// load binds the schema, validated against Pulumi's metaschema, with the Python README set.
func load(schemaPath, pythonReadme string) (*schema.Package, error) {
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		return nil, err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return nil, fmt.Errorf("%s: %w", schemaPath, err)
	}
	var pyInfo map[string]any
	if err := json.Unmarshal(spec.Language["python"], &pyInfo); err != nil {
		return nil, fmt.Errorf("%s: language.python: %w", schemaPath, err)
	}
	pyInfo["readme"] = pythonReadme
	if spec.Language["python"], err = json.Marshal(pyInfo); err != nil {
		return nil, err
	}
	pkg, diags, err := schema.BindSpec(spec, noDependencies{}, schema.ValidationOptions{})
	if err != nil {
		return nil, err
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return pkg, nil
}

// pinPulumi sets the Go SDK's requirement of the Pulumi Go SDK to the CLI's version (the
// generator writes a fixed version of its own); a go.mod without that line is an error, so a
// generator that writes it differently cannot leave the SDK on another version unnoticed.
func pinPulumi(goMod []byte, version string) ([]byte, error) {
	re := regexp.MustCompile(`(?m)^require github\.com/pulumi/pulumi/sdk/v3 v\S+$`)
	if !re.Match(goMod) {
		return nil, fmt.Errorf("go: the generated go.mod has no 'require github.com/pulumi/pulumi/sdk/v3' line:\n%s", goMod)
	}
	return re.ReplaceAll(goMod, []byte("require github.com/pulumi/pulumi/sdk/v3 "+version)), nil
}

// write replaces the folder's generated files with files, keeping its README.md.
func write(dir string, files map[string][]byte) error {
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	for _, e := range entries {
		if e.Name() != "README.md" {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// noDependencies is the schema loader of a package that references no other package: the svc
// schema's types are all its own, so any load is an error in the schema.
type noDependencies struct{}

func (noDependencies) LoadPackage(name string, _ *semver.Version) (*schema.Package, error) {
	return nil, fmt.Errorf("the schema references package %q; the svc schema references none", name)
}

func (l noDependencies) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return l.LoadPackage(d.Name, nil)
}

func (noDependencies) LoadPackageReference(name string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, fmt.Errorf("the schema references package %q; the svc schema references none", name)
}

func (l noDependencies) LoadPackageReferenceV2(
	_ context.Context, d *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return l.LoadPackageReference(d.Name, nil)
}
