// How much of its volume Karmada's etcd may fill (pure). etcd refuses writes past its backend quota
// (an alarm: reads and deletes only) instead of filling the disk, where it would stop altogether.
// The volume holds more than the database: defragmentation writes a compacted copy beside it, a
// member that falls behind receives a whole snapshot of it from the leader, and the WAL keeps up to
// five 64 MiB segments (--max-wals). So two copies of a full database and the WAL must fit: the
// quota is 40% of the volume, and at most 8 GiB, the largest etcd recommends
// (etcd.io/docs/v3.6/dev-guide/limit: "--quota-backend-bytes ... 8GB is a suggested maximum").

/** etcd's suggested maximum backend size. */
export const ETCD_MAX_QUOTA_BYTES = 8 * 1024 ** 3;
/** The share of the volume the database may take. */
export const ETCD_QUOTA_SHARE = 0.4;

const UNITS: Record<string, number> = { Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4 };

/** Bytes of a Kubernetes quantity as `kamino:karmada.etcd.volumeSize` takes it (`500Mi`, `8Gi`, `1Ti`). */
export function sizeBytes(size: string): number {
    const m = /^([1-9][0-9]*)(Mi|Gi|Ti)$/.exec(size);
    if (!m) throw new Error(`'${size}' is not a size such as 8Gi`);
    return Number(m[1]) * UNITS[m[2]];
}

/** `--quota-backend-bytes` for a member's volume: 40% of it, whole MiB, at most 8 GiB. */
export function quotaBackendBytes(volumeSize: string): number {
    const share = Math.floor((sizeBytes(volumeSize) * ETCD_QUOTA_SHARE) / UNITS.Mi) * UNITS.Mi;
    return Math.min(share, ETCD_MAX_QUOTA_BYTES);
}
