/**
 * The bench runs Lance and onnxruntime in its own process, so it sets their environment as the CLI's entry
 * point does (src/cli/native-env.ts): imported first by every bench that loads them in-process.
 */
import { setNativeEnv } from "../src/cli/native-env.js";

setNativeEnv(process.env);
