// Who may do what on an API server, asked as its admin with SubjectAccessReviews: the access tables
// of docs/security.md (Karmada's identity on a member, a Pull member's agent in Karmada and on its
// member) are checked row by row with these.
import { KubeClient } from "./kube-client";

/** One question: a resource action, or a `path` (a non-resource URL such as /readyz). */
export interface AccessQuestion {
    verb: string;
    group?: string;
    resource?: string;
    namespace?: string;
    name?: string;
    subresource?: string;
    path?: string;
}

/** The identity asked about, as the API server authenticates it. */
export interface AccessSubject {
    user: string;
    groups: string[];
}

/** A table of questions, each with what it says: `[what, question]` rows expected allowed or denied. */
export interface AccessTable {
    allowed: [string, AccessQuestion][];
    denied: [string, AccessQuestion][];
}

/** Whether `who` may do `a` on the API server of `client` (a SubjectAccessReview). */
export async function mayDo(client: KubeClient, who: AccessSubject, a: AccessQuestion): Promise<boolean> {
    const spec = {
        ...who,
        ...(a.path
            ? { nonResourceAttributes: { verb: a.verb, path: a.path } }
            : {
                  resourceAttributes: {
                      verb: a.verb,
                      group: a.group ?? "",
                      resource: a.resource,
                      namespace: a.namespace,
                      name: a.name,
                      subresource: a.subresource,
                  },
              }),
    };
    const res = await client.request("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec,
    });
    if (res.status !== 201) throw new Error(`SubjectAccessReview: HTTP ${res.status} ${res.body.slice(0, 300)}`);
    return JSON.parse(res.body).status?.allowed === true;
}

/** Every row whose answer is not the expected one, prefixed with `where`. */
export async function accessMismatches(client: KubeClient, who: AccessSubject, table: AccessTable, where: string): Promise<string[]> {
    const wrong: string[] = [];
    for (const [what, a] of table.allowed) if (!(await mayDo(client, who, a))) wrong.push(`${where}: denied, expected allowed: ${what}`);
    for (const [what, a] of table.denied) if (await mayDo(client, who, a)) wrong.push(`${where}: allowed, expected denied: ${what}`);
    return wrong;
}
