// Node formats stack traces itself only where it maps TypeScript sources (--enable-source-maps).
import { useNativeStackTraces } from "../../components/common/stack-traces";

test("with Node's source maps on, ts-node's formatter is removed", () => {
    const formatter = () => "mapped by ts-node";
    const error: { prepareStackTrace?: unknown } = { prepareStackTrace: formatter };
    expect(useNativeStackTraces({ sourceMapsEnabled: true }, error)).toBe(true);
    expect(error.prepareStackTrace).toBeUndefined();
});

test("without them (jest, a runtime that ignores nodeargs), ts-node's formatter stays", () => {
    const formatter = () => "mapped by ts-node";
    const error: { prepareStackTrace?: unknown } = { prepareStackTrace: formatter };
    expect(useNativeStackTraces({ sourceMapsEnabled: false }, error)).toBe(false);
    expect(useNativeStackTraces({}, error)).toBe(false);
    expect(error.prepareStackTrace).toBe(formatter);
});

test("Pulumi.yaml starts the program's Node with its source maps on and the compile cache preloaded", () => {
    const repo = require("path").join(__dirname, "../..");
    const yaml = require("fs").readFileSync(`${repo}/Pulumi.yaml`, "utf8") as string;
    expect(yaml).toMatch(/^ {4}nodeargs: --enable-source-maps --require \.\/preload\.js$/m);
    expect(require("fs").existsSync(`${repo}/preload.js`)).toBe(true);
});
