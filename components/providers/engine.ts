/**
 * The former name of `engineProtocol.ts`, kept because `pulumi-svc/providers/engine` is a
 * package path.
 *
 * @deprecated Import from `pulumi-svc/providers/engineProtocol`; this path goes in the next
 * minor version.
 */
export {
  EngineGoneError,
  PartialStateError,
  engineAddress,
  exitOrphanedProvider,
  isListening,
} from "./engineProtocol";
