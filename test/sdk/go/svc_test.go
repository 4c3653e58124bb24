// Package sdktest runs the Go SDK under Pulumi's mocks: what a program registers, as the
// engine sees it. Mocks run no provider `check` and return a resource's outputs as the test gives
// them, so these tests check what the SDK itself does: tokens, input names, secrets, typed
// outputs, outputs into inputs. Run by `npm test` (test/sdk/sdks.test.ts) on the release's module
// (from its GOPROXY=file:// folder); this module's `replace` of sdk/go serves only its README build.
package sdktest

import (
	"os"
	"sort"
	"sync"
	"testing"

	"github.com/pulumi-svc/pulumi-svc/sdk/go/svc"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

const (
	password = "go-secret-password-5d1e"
	token    = "go-secret-token-a4b8"
)

// registrations keeps each registration as the mocks received it, by resource name.
type registrations struct {
	mu   sync.Mutex
	args map[string]pulumi.MockResourceArgs
}

func (r *registrations) NewResource(args pulumi.MockResourceArgs) (string, resource.PropertyMap, error) {
	r.mu.Lock()
	r.args[args.Name] = args
	r.mu.Unlock()
	outputs := args.Inputs.Copy()
	if args.TypeToken == "svc:index:Account" {
		// What the mocked account API answers: the record's outputs, typed as the service sends them.
		outputs["accountId"] = resource.NewProperty("acct-42")
		outputs["maxParallelism"] = resource.NewProperty(10.0)
		outputs["maxRetries"] = resource.NewProperty(3.0)
		outputs["type"] = resource.NewProperty("payg")
	}
	return args.Name + "-id", outputs, nil
}

func (r *registrations) Call(pulumi.MockCallArgs) (resource.PropertyMap, error) {
	return resource.PropertyMap{}, nil
}

func (r *registrations) get(t *testing.T, name string) pulumi.MockResourceArgs {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	args, ok := r.args[name]
	if !ok {
		t.Fatalf("no resource %q was registered", name)
	}
	return args
}

// run runs a program under the mocks and returns what it registered.
func run(t *testing.T, program pulumi.RunFunc) *registrations {
	t.Helper()
	r := &registrations{args: map[string]pulumi.MockResourceArgs{}}
	if err := pulumi.RunErr(program, pulumi.WithMocks("project", "stack", r)); err != nil {
		t.Fatalf("the program failed: %v", err)
	}
	return r
}

func newAccount(ctx *pulumi.Context) (*svc.Account, error) {
	return svc.NewAccount(ctx, "account", &svc.AccountArgs{
		Username: pulumi.String("ops"),
		Password: pulumi.String(password),
	})
}

func TestAccountRegistersWithItsTokenAndThePasswordAsASecret(t *testing.T) {
	r := run(t, func(ctx *pulumi.Context) error {
		_, err := newAccount(ctx)
		return err
	})
	args := r.get(t, "account")
	if args.TypeToken != "svc:index:Account" {
		t.Errorf("type token %q, want svc:index:Account", args.TypeToken)
	}
	if got := args.Inputs["username"]; !got.IsString() || got.StringValue() != "ops" {
		t.Errorf("username input %v, want \"ops\"", got)
	}
	pw := args.Inputs["password"]
	if !pw.IsSecret() || pw.SecretValue().Element.StringValue() != password {
		t.Errorf("password input %v, want the password as a secret", pw)
	}
}

func TestAccountRegistrationNamesItsSecretOutputs(t *testing.T) {
	r := run(t, func(ctx *pulumi.Context) error {
		_, err := newAccount(ctx)
		return err
	})
	got := append([]string(nil), r.get(t, "account").RegisterRPC.GetAdditionalSecretOutputs()...)
	sort.Strings(got)
	if len(got) != 2 || got[0] != "password" || got[1] != "token" {
		t.Errorf("additionalSecretOutputs %v, want [password token]", got)
	}
}

func TestAccountOutputsMapBackTyped(t *testing.T) {
	var maxParallelism int
	var accountID string
	run(t, func(ctx *pulumi.Context) error {
		account, err := newAccount(ctx)
		if err != nil {
			return err
		}
		account.MaxParallelism.ApplyT(func(v int) int { maxParallelism = v; return v })
		account.AccountId.ApplyT(func(v string) string { accountID = v; return v })
		return nil
	})
	if maxParallelism != 10 || accountID != "acct-42" {
		t.Errorf("maxParallelism %d and accountId %q, want 10 and \"acct-42\"", maxParallelism, accountID)
	}
}

func TestAnAccountOutputFeedsAWorkflowInput(t *testing.T) {
	r := run(t, func(ctx *pulumi.Context) error {
		account, err := newAccount(ctx)
		if err != nil {
			return err
		}
		_, err = svc.NewWorkflow(ctx, "orders", &svc.WorkflowArgs{
			Url:         pulumi.String("https://orders.example.com/workflow"),
			Account:     account.AccountId,
			Retries:     account.MaxRetries,
			FlowControl: &svc.WorkflowFlowControlArgs{Key: pulumi.String("orders"), Parallelism: account.MaxParallelism},
		})
		return err
	})
	args := r.get(t, "orders")
	if args.TypeToken != "svc:index:Workflow" {
		t.Errorf("type token %q, want svc:index:Workflow", args.TypeToken)
	}
	want := resource.PropertyMap{
		"url":     resource.NewProperty("https://orders.example.com/workflow"),
		"account": resource.NewProperty("acct-42"),
		"retries": resource.NewProperty(3.0),
		"flowControl": resource.NewProperty(resource.PropertyMap{
			"key": resource.NewProperty("orders"), "parallelism": resource.NewProperty(10.0),
		}),
	}
	if !args.Inputs.DeepEquals(want) {
		t.Errorf("Workflow inputs %v, want %v", args.Inputs, want)
	}
}

func TestDlqRecoveryRegistersItsFiltersAndTheTokenAsASecret(t *testing.T) {
	r := run(t, func(ctx *pulumi.Context) error {
		_, err := svc.NewDlqRecovery(ctx, "incident", &svc.DlqRecoveryArgs{
			WorkflowUrl: pulumi.String("https://orders.example.com/workflow"),
			FromDate:    pulumi.Int(1764000000000),
			MaxRuns:     pulumi.Int(500),
			Token:       pulumi.String(token),
			FlowControl: &svc.WorkflowFlowControlArgs{Key: pulumi.String("recovery"), Parallelism: pulumi.Int(2)},
		})
		return err
	})
	args := r.get(t, "incident")
	if args.TypeToken != "svc:index:DlqRecovery" {
		t.Errorf("type token %q, want svc:index:DlqRecovery", args.TypeToken)
	}
	if got := args.Inputs["fromDate"]; !got.IsNumber() || got.NumberValue() != 1764000000000 {
		t.Errorf("fromDate input %v, want 1764000000000", got)
	}
	if got := args.Inputs["maxRuns"]; !got.IsNumber() || got.NumberValue() != 500 {
		t.Errorf("maxRuns input %v, want 500", got)
	}
	if got := args.Inputs["workflowUrl"]; !got.IsString() || got.StringValue() != "https://orders.example.com/workflow" {
		t.Errorf("workflowUrl input %v", got)
	}
	if tok := args.Inputs["token"]; !tok.IsSecret() || tok.SecretValue().Element.StringValue() != token {
		t.Errorf("token input %v, want the token as a secret", tok)
	}
}

// The engine starts the svc plugin at the version a resource asks for: the Go module's own, as the
// Python package's resources ask for theirs. Without it a program would run whichever svc plugin
// is installed. SVC_SDK_VERSION: the release's version, which test/sdk/sdks.test.ts requires the
// module at.
func TestResourcesAskForThePluginAtTheirModulesVersion(t *testing.T) {
	want := os.Getenv("SVC_SDK_VERSION")
	if want == "" {
		t.Fatal("SVC_SDK_VERSION is not set: npm test (test/sdk/sdks.test.ts) sets it to the release's version")
	}
	r := run(t, func(ctx *pulumi.Context) error {
		_, err := newAccount(ctx)
		return err
	})
	if got := r.get(t, "account").RegisterRPC.GetVersion(); got != want {
		t.Errorf("the Account asks for the svc plugin at %q, want %q", got, want)
	}
}
