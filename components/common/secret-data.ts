// Pure builders for Secret payloads.

/** Login to a container registry, from secret config. */
export interface RegistryCredentials {
    /** Registry host, e.g. `containers.intersystems.com`. */
    server: string;
    username: string;
    password: string;
}

/** The `.dockerconfigjson` document `kubectl create secret docker-registry` writes. */
export function dockerConfigJson(c: RegistryCredentials): string {
    const auth = Buffer.from(`${c.username}:${c.password}`).toString("base64");
    return JSON.stringify({ auths: { [c.server]: { username: c.username, password: c.password, auth } } });
}
