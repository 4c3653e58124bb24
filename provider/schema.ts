/**
 * The svc provider's Pulumi package schema, generated from the declarations at run time: the
 * `Account` outputs from the account record's one table (`client/accountRecord.ts`), its inputs
 * and the provider's config variables from the settings' one list (`core/connection.ts`), and
 * the other resources' tables from their folders (`dlqRecovery/schema.ts`, `workflow/schema.ts`).
 *
 * @packageDocumentation
 */
import { ACCOUNT_FIELD_LIST, type AccountFieldKind } from "../client/accountRecord";
import { ACCOUNT_SETTINGS, SETTINGS, type SettingName } from "../core/connection";
import { ACCOUNT_PROVIDER_TYPE } from "../core/typeTokens";
import { dlqRecoveryResources, dlqRecoveryTypes } from "./dlqRecovery/schema";
import { workflowResources, workflowTypes } from "./workflow/schema";

/** A property of the schema (the part this provider uses). */
export interface SchemaProperty {
  readonly type: "string" | "integer" | "number" | "boolean";
  readonly description?: string;
  readonly secret?: boolean;
}

/** The package name: the `svc:` of tokens and stack config keys. */
export const PACKAGE_NAME = "svc";
/**
 * The Python package and Go module of the SDKs (`sdk/`), and how they are generated: the Python
 * package versioned as the schema, with a `pyproject.toml`; the Go module `…/sdk/go`.
 */
export const LANGUAGE = {
  python: { packageName: "pulumi_svc", respectSchemaVersion: true, pyproject: { enabled: true } },
  go: {
    importBasePath: "github.com/pulumi-svc/pulumi-svc/sdk/go/svc",
    generateResourceContainerTypes: true,
    respectSchemaVersion: true,
  },
  nodejs: { packageName: "pulumi-svc" },
} as const;

/** The schema type of a record field's kind (an enum is a string). */
function schemaType(kind: AccountFieldKind): SchemaProperty["type"] {
  return typeof kind === "string" ? kind : "string";
}

/** A connection setting as a schema property (config variable or resource input). */
function settingProperty(name: SettingName): SchemaProperty {
  const s = SETTINGS[name];
  return {
    type: "string",
    description: `Falls back to the stack config \`${s.config}\`, then the environment variable \`${s.env}\`.`,
    ...(s.secret ? { secret: true } : {}),
  };
}

/** The `allowInsecureHttp` input. */
const ALLOW_INSECURE_HTTP: SchemaProperty = {
  type: "boolean",
  description: "Allow credentials over plain `http://` to a non-loopback host. Default false.",
};

/** The config variables: one per setting, named as its stack config key without `svc:`. */
export function configVariables(): Record<string, SchemaProperty> {
  const names = Object.keys(SETTINGS) as SettingName[];
  return Object.fromEntries(names.map((n) => [SETTINGS[n].config.replace(/^svc:/, ""), settingProperty(n)]));
}

/** The `Account` inputs: the account API's settings and `allowInsecureHttp`. */
export function accountInputs(): Record<string, SchemaProperty> {
  const inputs: Record<string, SchemaProperty> = {};
  for (const n of ACCOUNT_SETTINGS) inputs[SETTINGS[n].input] = settingProperty(n);
  inputs.allowInsecureHttp = ALLOW_INSECURE_HTTP;
  return inputs;
}

/** The `Account` outputs: every field of the record, then the connection inputs that are not secret. */
export function accountOutputs(): Record<string, SchemaProperty> {
  const outputs: Record<string, SchemaProperty> = {};
  for (const f of ACCOUNT_FIELD_LIST) {
    outputs[f.output] = {
      type: schemaType(f.kind),
      description: `The record field \`${f.wire}\`${f.unit ? `, in ${f.unit}` : ""}.`,
      ...(f.secret ? { secret: true } : {}),
    };
  }
  for (const [name, p] of Object.entries(accountInputs())) if (!p.secret) outputs[name] ??= p;
  return outputs;
}

/** The names of the `Account` outputs that are secrets. */
export function secretAccountOutputs(): string[] {
  return Object.entries(accountOutputs())
    .filter(([, p]) => p.secret)
    .map(([n]) => n);
}

/**
 * Where the engine downloads the plugin from, written into the single executable plugin by its
 * bundler when the release is given one (`npm run release -- --plugin-download-url <url>`,
 * toolchain/release/plugin.ts); undefined everywhere else, so the schema names none.
 */
declare const SVC_PLUGIN_DOWNLOAD_URL: string | undefined;

/**
 * The package schema.
 *
 * @param pluginDownloadURL - the schema's `pluginDownloadURL`; absent when not given
 */
export function packageSchema(
  version: string,
  pluginDownloadURL = typeof SVC_PLUGIN_DOWNLOAD_URL === "string" ? SVC_PLUGIN_DOWNLOAD_URL : undefined,
): Record<string, unknown> {
  const variables = configVariables();
  return {
    name: PACKAGE_NAME,
    displayName: "svc",
    version,
    ...(pluginDownloadURL ? { pluginDownloadURL } : {}),
    description:
      "The svc durable-workflow queue service: the account record as outputs, workflows checked against " +
      "its limits, and the recovery of failed runs from the DLQ.",
    // supportPack: SDKs that carry their version and package files (pyproject.toml, go.mod).
    meta: { moduleFormat: "(.*)", supportPack: true },
    config: { variables },
    provider: { description: "The svc provider.", inputProperties: variables },
    resources: {
      [ACCOUNT_PROVIDER_TYPE]: {
        description:
          "The svc account record (plan, limits, credentials) as outputs, read from the account API. " +
          "Deleting it leaves the account untouched.",
        inputProperties: accountInputs(),
        properties: accountOutputs(),
        required: ACCOUNT_FIELD_LIST.map((f) => f.output),
      },
      ...workflowResources(),
      ...dlqRecoveryResources(),
    },
    types: { ...workflowTypes(), ...dlqRecoveryTypes() },
    language: LANGUAGE,
  };
}
