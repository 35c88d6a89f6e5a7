/**
 * protobuf: just enough of protobuf's wire format to read a message's fields in order and write fields
 * back (ONNX models, Lance manifests). Knows nothing of funes.
 */
export {
  PbBudget,
  type PbField,
  PbLimitError,
  type PbLimits,
  PbWriter,
  pbDecode,
  pbSigned,
  pbSignedVarints,
  pbText,
  pbUnsigned,
  pbVarints,
} from "./wire.js";
