// Preloaded (`--import`) by test/stdio-start-imports.test.ts: writes the Node built-in modules the process
// loaded, as `process.moduleLoadList` names them, to the file in JOBTASKS_TEST_BUILTINS_FILE as it exits.
import { writeFileSync } from "node:fs";

const file = process.env["JOBTASKS_TEST_BUILTINS_FILE"];
if (file)
  process.once("exit", () =>
    writeFileSync(
      file,
      JSON.stringify(
        process.moduleLoadList.filter((name) => name.startsWith("NativeModule ")).map((name) => name.slice(13)),
      ),
    ),
  );
