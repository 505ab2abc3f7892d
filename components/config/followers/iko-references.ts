// How Karmada finds the Secrets and ConfigMaps an IrisCluster needs: by the fields of its spec that
// IKO reads (docs/configuration.md "Dependencies follow the IrisCluster"). One lookup for both
// followers (secrets.ts, config-maps.ts), because one field may name either kind (a VolumeSource)
// and Karmada keeps the list in the order the walk finds them.
import type { DependencyLookup } from "./follower";

/**
 * The walk of the spec, a block of GetDependencies (see DependencyLookup): the ConfigMap and
 * Secrets the spec names. Karmada stores the list on the binding and rewrites it when the JSON
 * differs, so the order is fixed (map keys sorted) and each object is listed once. A VolumeSource
 * (`tls.*`, `volumes[]`) counts by its `secret`, `configMap` and `projected` sources; CSI and other
 * sources name nothing in Karmada.
 */
export const IKO_REFERENCES: DependencyLookup = {
    spec: `
    local function ref(kind, r)
      if type(r) == "table" then add(kind, r.name) end
    end
    local function volumeSource(v)
      if type(v) ~= "table" then return end
      if type(v.secret) == "table" then add("Secret", v.secret.secretName) end
      if type(v.configMap) == "table" then add("ConfigMap", v.configMap.name) end
      if type(v.projected) == "table" and type(v.projected.sources) == "table" then
        for _, s in ipairs(v.projected.sources) do
          if type(s) == "table" then
            ref("Secret", s.secret)
            ref("ConfigMap", s.configMap)
          end
        end
      end
    end
    ref("ConfigMap", spec.configSource)
    ref("Secret", spec.licenseKeySecret)
    if type(spec.imagePullSecrets) == "table" then
      for _, s in ipairs(spec.imagePullSecrets) do ref("Secret", s) end
    end
    if type(spec.tls) == "table" then
      for _, k in ipairs(sortedKeys(spec.tls)) do volumeSource(spec.tls[k]) end
    end
    if type(spec.topology) == "table" then
      for _, k in ipairs(sortedKeys(spec.topology)) do
        local node = spec.topology[k]
        if type(node) == "table" then
          ref("Secret", node.loginSecret)
          if type(node.webgateway) == "table" then ref("Secret", node.webgateway.loginSecret) end
        end
      end
    end
    if type(spec.volumes) == "table" then
      for _, v in ipairs(spec.volumes) do volumeSource(v) end
    end
`,
};
