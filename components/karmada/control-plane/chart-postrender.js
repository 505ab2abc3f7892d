#!/usr/bin/env node
// @ts-check
// Helm's post-renderer for Karmada's chart (the Release's `postrender`, control-plane.ts): Helm pipes
// the chart's rendered manifests through it on every install and upgrade and applies what it prints.
// A setting the chart has no value for is thus part of the release from its first pod: nothing is
// patched after the release, and nothing rolls for it (a patch after the release rolled
// karmada-apiserver once, 42 s of the production `up`). What it sets: karmada-apiserver's HTTP/2
// health check (apiserver-health-check.ts says why). Plain JavaScript, so that Node runs it as Helm
// starts it, with no compile step; its pure part is unit-tested (test/unit/chart-postrender.test.ts).
"use strict";
const YAML = require("yaml");

/** The chart's karmada-apiserver Deployment and its container (release `karmada`). */
const APISERVER_DEPLOYMENT = "karmada-apiserver";

/**
 * client-go's HTTP/2 health check (k8s.io/apimachinery/pkg/util/net/http.go): a ping after 5 s
 * without a frame, the connection closed after 5 s more without its answer. A dead peer is given up
 * within 10 s; a live one answers a ping in milliseconds, and a busy connection is never pinged.
 */
const APISERVER_HTTP2_HEALTH_CHECK_ENV = Object.freeze([
    Object.freeze({ name: "HTTP2_READ_IDLE_TIMEOUT_SECONDS", value: "5" }),
    Object.freeze({ name: "HTTP2_PING_TIMEOUT_SECONDS", value: "5" }),
]);

/**
 * The chart's rendered manifests (a YAML stream, as Helm passes it) with the health check in
 * karmada-apiserver's environment: added, or replacing variables of the same names, the rest of the
 * stream as it came. Throws unless the stream holds exactly one such Deployment with that container:
 * a chart that renders it otherwise must be read again, not installed without the setting.
 * @param {string} manifests
 * @returns {string}
 */
function withApiServerHealthCheck(manifests) {
    const names = new Set(APISERVER_HTTP2_HEALTH_CHECK_ENV.map((e) => e.name));
    let found = 0;
    // Split where Helm splits a stream (a line of `---`); every other document goes back as it came.
    const parts = manifests.split(/^---[ \t]*$/m).map((part) => {
        const doc = YAML.parseDocument(part);
        if (doc.errors.length > 0) throw new Error(`the chart's manifests are not YAML: ${doc.errors[0].message}`);
        if (doc.get("kind") !== "Deployment" || doc.getIn(["metadata", "name"]) !== APISERVER_DEPLOYMENT) return part;
        const containers = doc.getIn(["spec", "template", "spec", "containers"]);
        const container = YAML.isSeq(containers) ? containers.items.find((c) => YAML.isMap(c) && c.get("name") === APISERVER_DEPLOYMENT) : undefined;
        if (!YAML.isMap(container)) throw new Error(`the chart's ${APISERVER_DEPLOYMENT} Deployment has no container ${APISERVER_DEPLOYMENT}`);
        const env = container.get("env");
        const kept = YAML.isSeq(env) ? env.items.filter((e) => !(YAML.isMap(e) && names.has(String(e.get("name"))))) : [];
        container.set("env", doc.createNode([...kept, ...APISERVER_HTTP2_HEALTH_CHECK_ENV]));
        found++;
        return `\n${doc.toString({ lineWidth: 0 })}`;
    });
    if (found !== 1) throw new Error(`expected one ${APISERVER_DEPLOYMENT} Deployment in the chart's manifests, found ${found}`);
    return parts.join("---");
}

module.exports = { APISERVER_DEPLOYMENT, APISERVER_HTTP2_HEALTH_CHECK_ENV, withApiServerHealthCheck };

// As Helm runs it: the manifests on stdin, the result on stdout, an error on stderr with a non-zero exit.
if (require.main === module) {
    /** @type {Buffer[]} */
    const chunks = [];
    process.stdin.on("data", (c) => chunks.push(c));
    process.stdin.on("end", () => {
        try {
            process.stdout.write(withApiServerHealthCheck(Buffer.concat(chunks).toString("utf8")));
        } catch (e) {
            process.stderr.write(`kamino chart-postrender: ${e instanceof Error ? e.message : String(e)}\n`);
            process.exit(1);
        }
    });
}
