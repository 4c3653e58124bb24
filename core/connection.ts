/**
 * Where the service's URLs and credentials come from — the one place for config and
 * credentials. Each setting is taken from the first source that has it:
 *
 * | setting | 1. resource input | 2. stack config | 3. environment |
 * | --- | --- | --- | --- |
 * | account API URL | `accountApiUrl` | `svc:accountApiUrl` | `SVC_ACCOUNT_API_URL` |
 * | username | `username` | `svc:username` | `SVC_USERNAME` |
 * | password | `password` | `svc:password` (secret) | `SVC_PASSWORD` |
 * | resume API URL | `baseUrl` | `svc:baseUrl` | `SVC_BASE_URL` |
 * | token | `token` | `svc:token` (secret) | `SVC_TOKEN` |
 *
 * Providers build a {@link Settings} value in `configure` (the engine hands the stack's config,
 * secrets decrypted, to the provider process) from that config and the provider process's
 * environment, and pass it where a setting is looked up: nothing here is module state, so
 * config and environment values are never written into state. Resource inputs given as plain
 * strings are wrapped as secrets by the components.
 */
import { nearestName } from "./inputNames";

/** Reads stack config keys such as `svc:token`. */
export interface StackConfigReader {
  get(key: string): string | undefined;
  /** Every key of the stack config, when the reader can list them (for "did you mean" hints). */
  keys?(): readonly string[];
  /**
   * The explicit provider whose inputs these values are (the svc provider's `pulumi:providers:svc`
   * resource), not the stack config: messages then name its inputs (`password` of the provider
   * `second`) where they would name a stack config key.
   */
  readonly provider?: string;
}

/** The source of a setting that a {@link StackConfigReader} holds: its origin, its name in a sentence, how to set it. */
interface ConfigSource {
  readonly origin: SettingOrigin;
  readonly text: string;
  readonly how?: string;
}

/** The stack config key of a setting, or the input of the explicit provider the reader holds. */
function configSource(name: SettingName, config: StackConfigReader | undefined): ConfigSource {
  const s = SETTINGS[name];
  if (config?.provider !== undefined) {
    const origin = `input \`${s.input}\` of the provider \`${config.provider}\``;
    return { origin, text: `the ${origin}` };
  }
  return {
    origin: `stack config \`${s.config}\``,
    text: `the stack config \`${s.config}\``,
    how: `\`pulumi config set${s.secret ? " --secret" : ""} ${s.config} <value>\``,
  };
}

/** A connection setting: its name and where each source keeps it. */
export interface SettingSource {
  /** Resource input name. */
  input: string;
  /** Stack config key. */
  config: string;
  /** Environment variable. */
  env: string;
  /** A credential: set in the stack config with `--secret`, never shown. */
  secret: boolean;
}

/** The settings and their sources: the one list of them. */
export const SETTINGS = {
  accountApiUrl: {
    input: "accountApiUrl",
    config: "svc:accountApiUrl",
    env: "SVC_ACCOUNT_API_URL",
    secret: false,
  },
  username: { input: "username", config: "svc:username", env: "SVC_USERNAME", secret: false },
  password: { input: "password", config: "svc:password", env: "SVC_PASSWORD", secret: true },
  baseUrl: { input: "baseUrl", config: "svc:baseUrl", env: "SVC_BASE_URL", secret: false },
  token: { input: "token", config: "svc:token", env: "SVC_TOKEN", secret: true },
} as const satisfies Record<string, SettingSource>;

/** Name of a connection setting. */
export type SettingName = keyof typeof SETTINGS;

/** The settings of the account API (`Account`, the policy pack, DlqRecovery's rate default). */
export const ACCOUNT_SETTINGS = [
  "accountApiUrl",
  "username",
  "password",
] as const satisfies readonly SettingName[];
/** The settings of the resume API (`DlqRecovery`). */
export const RESUME_SETTINGS = ["baseUrl", "token"] as const satisfies readonly SettingName[];

/** Where a resolved value came from, for messages: e.g. "stack config `svc:token`". */
export type SettingOrigin = string;

/** Thrown when a required setting is found in no source (or only as an empty string). */
export class MissingSettingError extends Error {
  /**
   * @param missing - the settings found nowhere
   * @param context - what needed them, e.g. "DlqRecovery `incident-42`"
   * @param configKeys - the stack config's keys: a `svc:` key that is no setting gets a hint
   * @param empty - of the missing settings, those a source holds as an empty string: that source
   * @param provider - the explicit provider whose inputs were read instead of the stack config
   */
  constructor(
    public readonly missing: SettingName[],
    context: string,
    configKeys: readonly string[] = [],
    public readonly empty: Partial<Record<SettingName, SettingOrigin>> = {},
    provider?: string,
  ) {
    const unset = missing.filter((m) => empty[m] === undefined);
    const parts: string[] = [];
    const config = provider === undefined ? undefined : { get: () => undefined, provider };
    if (unset.length > 0) {
      const how = unset.map((m) => describeSources(m, config)).join("; ");
      parts.push(
        `no ${unset.map((m) => `\`${m}\``).join(", ")} configured. ${how.charAt(0).toUpperCase()}${how.slice(1)}.`,
      );
    }
    for (const m of missing) {
      const origin = empty[m];
      if (origin !== undefined) parts.push(describeEmpty(m, origin, config));
    }
    super(
      `${context}: ${parts.join(" ")}` +
        unknownConfigKeys(configKeys)
          .map((u) => ` ${configKeyHint(u)}`)
          .join(""),
    );
    this.name = "MissingSettingError";
  }
}

/**
 * "`token` is set but empty in the stack config `svc:token`. Give it a value (`pulumi config set
 * --secret svc:token <value>`), or set the input `token` or the environment variable `SVC_TOKEN`."
 */
function describeEmpty(name: SettingName, origin: SettingOrigin, config?: StackConfigReader): string {
  const s = SETTINGS[name];
  const sources: ConfigSource[] = [
    { origin: `input \`${s.input}\``, text: `the input \`${s.input}\`` },
    configSource(name, config),
    { origin: `environment variable \`${s.env}\``, text: `the environment variable \`${s.env}\`` },
  ];
  const here = sources.find((x) => x.origin === origin);
  const others = sources.filter((x) => x !== here).map((x) => x.text);
  return (
    `\`${name}\` is set but empty in the ${origin}. Give it a value${here?.how ? ` (${here.how})` : ""}, ` +
    `or set ${others.join(" or ")}.`
  );
}

/** The config namespace of the settings. */
const CONFIG_NAMESPACE = "svc:";
/** The stack config keys of the settings: `svc:accountApiUrl`, ... */
export const CONFIG_KEYS: readonly string[] = Object.values(SETTINGS).map((s) => s.config);

/** A stack config key in the `svc:` namespace that is no setting, and the known key nearest to it. */
export interface UnknownConfigKey {
  key: string;
  nearest: string;
}

/**
 * The keys of `svc:` that are no setting (a misspelling such as `svc:tokn`), each with the
 * nearest known key (edit distance, case ignored).
 *
 * @param keys - the stack config's keys
 */
export function unknownConfigKeys(keys: readonly string[]): UnknownConfigKey[] {
  return keys
    .filter((k) => k.startsWith(CONFIG_NAMESPACE) && !CONFIG_KEYS.includes(k))
    .map((key) => ({ key, nearest: nearestName(key, CONFIG_KEYS) }));
}

/** "The stack config has `svc:tokn`, which is no setting of pulumi-svc: did you mean `svc:token`?" */
export function configKeyHint(u: UnknownConfigKey): string {
  return `The stack config has \`${u.key}\`, which is no setting of pulumi-svc: did you mean \`${u.nearest}\`?`;
}

/**
 * The keys of a stack config reader: its own `keys()`, else those of the dynamic-provider
 * server's config (`rawConfig`, the stack config the engine hands to `configure`).
 */
export function configKeysOf(config: StackConfigReader | undefined): readonly string[] {
  if (config === undefined) return [];
  if (config.keys) return config.keys();
  const raw = (config as { rawConfig?: unknown }).rawConfig;
  return raw !== null && typeof raw === "object" ? Object.keys(raw) : [];
}

/**
 * "set the input `token`, the stack config `svc:token` or the environment variable `SVC_TOKEN`"
 * (with an explicit provider's inputs instead of the stack config: "the input `token` of the
 * provider `second`").
 */
export function describeSources(name: SettingName, config?: StackConfigReader): string {
  const s = SETTINGS[name];
  return `set the input \`${s.input}\`, ${configSource(name, config).text} or the environment variable \`${s.env}\``;
}

/** A value and where it came from. */
export interface Resolved {
  value: string;
  origin: SettingOrigin;
}

/**
 * Resolves one setting: the input when given, else stack config, else environment.
 * Empty strings count as not set.
 */
export function resolveSetting(
  name: SettingName,
  input: string | undefined,
  env: NodeJS.ProcessEnv,
  config: StackConfigReader | undefined,
): Resolved | undefined {
  const s = SETTINGS[name];
  if (typeof input === "string" && input !== "") return { value: input, origin: `input \`${s.input}\`` };
  const fromConfig = config?.get(s.config);
  if (typeof fromConfig === "string" && fromConfig !== "") {
    return { value: fromConfig, origin: configSource(name, config).origin };
  }
  const fromEnv = env[s.env];
  if (typeof fromEnv === "string" && fromEnv !== "") {
    return { value: fromEnv, origin: `environment variable \`${s.env}\`` };
  }
  return undefined;
}

/**
 * Where a setting is set to an empty string, in the order the sources are read: the origin, or
 * `undefined` when no source holds it empty. For a message: an empty value counts as not set.
 */
export function emptySetting(
  name: SettingName,
  input: string | undefined,
  env: NodeJS.ProcessEnv,
  config: StackConfigReader | undefined,
): SettingOrigin | undefined {
  const s = SETTINGS[name];
  if (input === "") return `input \`${s.input}\``;
  if (config?.get(s.config) === "") return configSource(name, config).origin;
  if (env[s.env] === "") return `environment variable \`${s.env}\``;
  return undefined;
}

/** Resolves several settings at once, throwing one error that names every missing one. */
export function resolveSettings<N extends SettingName>(
  names: readonly N[],
  inputs: Partial<Record<N, string | undefined>>,
  context: string,
  env: NodeJS.ProcessEnv,
  config: StackConfigReader | undefined,
): Record<N, Resolved> {
  const out = {} as Record<N, Resolved>;
  const missing: N[] = [];
  for (const n of names) {
    const r = resolveSetting(n, inputs[n], env, config);
    if (r) out[n] = r;
    else missing.push(n);
  }
  if (missing.length > 0) {
    const empty: Partial<Record<SettingName, SettingOrigin>> = {};
    for (const m of missing) {
      const origin = emptySetting(m, inputs[m], env, config);
      if (origin !== undefined) empty[m] = origin;
    }
    throw new MissingSettingError(missing, context, configKeysOf(config), empty, config?.provider);
  }
  return out;
}

/**
 * The sources of settings besides a resource's inputs: the stack config and the environment.
 * An immutable value: a provider builds a new one in `configure` and passes it where a setting
 * is looked up.
 */
export class Settings {
  /**
   * @param env - the environment (of the provider or policy-pack process)
   * @param config - the stack config; `undefined` before `configure`
   */
  constructor(
    readonly env: NodeJS.ProcessEnv,
    readonly config?: StackConfigReader,
  ) {}

  /** One setting from the input, the stack config or the environment; undefined when none has it. */
  get(name: SettingName, input?: string): Resolved | undefined {
    return resolveSetting(name, input, this.env, this.config);
  }

  /**
   * Several settings at once.
   *
   * @throws MissingSettingError naming every missing setting and its sources
   */
  require<N extends SettingName>(
    names: readonly N[],
    inputs: Partial<Record<N, string | undefined>>,
    context: string,
  ): Record<N, Resolved> {
    return resolveSettings(names, inputs, context, this.env, this.config);
  }
}
