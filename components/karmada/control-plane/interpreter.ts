// IrisClusterInterpreter: teaches Karmada what an IrisCluster's health, status and dependencies
// are. Without it Karmada calls any IrisCluster healthy at once, the template in Karmada has no
// status, and the objects that follow it (config/followers) would need placements of their own.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { dependencyLookups, DependencyLookup } from "../../config";
import { IrisCluster } from "../../crds";
import { KARMADA_API_VERSIONS, KARMADA_KINDS } from "../../crds/karmada-api";
import { KarmadaContext } from "../../common/karmada-context";

/**
 * Unhealthy only when IKO reports a failure: phase Failed or Error. Karmada's application failover
 * moves a failover-placed IrisCluster off a member where it stays Unhealthy for
 * `failoverAfterSeconds`, so an IRIS that is still pulling its image or starting (no status yet,
 * Pending, Creating) must not count as Unhealthy, or it would be moved before it ever ran. Whether
 * it runs is the phase, which `up` waits for (iris-running.ts).
 */
export const HEALTH_LUA = `
function InterpretHealth(observedObj)
  if observedObj.status == nil then
    return true
  end
  local phase = observedObj.status.phase
  if phase == "Failed" or phase == "Error" then
    return false
  end
  return true
end
`;

/** Copies the member's whole status into the work status. */
export const REFLECT_LUA = `
function ReflectStatus(observedObj)
  if observedObj.status == nil then
    return {}
  end
  return observedObj.status
end
`;

/**
 * The template's status in Karmada: phase Running only when every member runs it, else the
 * first member phase that is not Running (Pending while a member has reported nothing), and
 * one entry per member with its phase and its first condition that is not True (what `up`
 * reports when a member does not run it).
 */
export const AGGREGATE_LUA = `
function AggregateStatus(desiredObj, statusItems)
  if statusItems == nil then
    return desiredObj
  end
  local phase = "Running"
  local clusters = {}
  for i = 1, #statusItems do
    local item = statusItems[i]
    local memberPhase = "Pending"
    if item.status ~= nil and item.status.phase ~= nil then
      memberPhase = item.status.phase
    end
    clusters[i] = { name = item.clusterName, phase = memberPhase }
    if item.status ~= nil and item.status.conditions ~= nil then
      for _, c in ipairs(item.status.conditions) do
        if c.status ~= "True" then
          local text = tostring(c.type) .. "=" .. tostring(c.status)
          if c.reason ~= nil then text = text .. ": " .. tostring(c.reason) end
          if c.message ~= nil then text = text .. ": " .. string.sub(tostring(c.message), 1, 200) end
          clusters[i].condition = text
          break
        end
      end
    end
    if memberPhase ~= "Running" and phase == "Running" then
      phase = memberPhase
    end
  end
  if #statusItems == 0 then
    phase = "Pending"
  end
  if desiredObj.status == nil then
    desiredObj.status = {}
  end
  desiredObj.status.phase = phase
  desiredObj.status.clusters = clusters
  return desiredObj
end
`;

/**
 * Keeps spec fields that IKO's mutating webhook fills in on the member and the template leaves
 * unset; otherwise Karmada would strip them on every sync and the two would fight. Never the fields
 * that name dependencies (at any depth): the template owns those, and a reference removed from it
 * must go from the member too, or the member's IrisCluster would keep naming a Secret or ConfigMap
 * that Karmada has just taken away (seen on the loopback fleet: IRIS could not start there).
 */
export const RETAIN_LUA = `
local templateOwned = {
  configSource = true, licenseKeySecret = true, imagePullSecrets = true,
  tls = true, volumes = true, loginSecret = true,
}

local function fillMissing(desired, observed)
  if type(desired) ~= "table" or type(observed) ~= "table" then
    return desired
  end
  for k, v in pairs(observed) do
    if templateOwned[k] then
      -- the template's value, or none
    elseif desired[k] == nil then
      desired[k] = v
    elseif type(desired[k]) == "table" and type(v) == "table" then
      desired[k] = fillMissing(desired[k], v)
    end
  end
  return desired
end

function Retain(desiredObj, observedObj)
  if observedObj.spec ~= nil then
    if desiredObj.spec == nil then
      desiredObj.spec = {}
    end
    desiredObj.spec = fillMissing(desiredObj.spec, observedObj.spec)
  end
  return desiredObj
end
`;

/**
 * The GetDependencies of a set of lookups (config/followers: each follower says how Karmada finds it).
 * With `propagateDeps` Karmada places each object it returns wherever the IrisCluster goes, and takes
 * it away from a member the IrisCluster leaves. Karmada stores the list on the binding and rewrites
 * it when the JSON differs, so every block lists its objects in a fixed order, and `add` lists each
 * object once. A lookup by annotation or label names one object of its kind in the IrisCluster's
 * namespace; a lookup by spec is a block of Lua run when the spec is a table.
 */
export function dependenciesLua(lookups: Array<{ lookup: DependencyLookup; followers: string[] }>): string {
    const blocks = lookups.map(({ lookup, followers }) => {
        const found = `  -- ${followers.join(", ")}`;
        if ("spec" in lookup) return `${found}\n  if type(spec) == "table" then\n${lookup.spec.replace(/^\n/, "")}  end\n`;
        const [where, key] = "annotation" in lookup ? ["annotations", lookup.annotation] : ["labels", lookup.label];
        return `${found}\n  if type(metadata.${where}) == "table" then\n    addObject(${luaString(lookup.apiVersion)}, ${luaString(lookup.kind)}, metadata.${where}[${luaString(key)}])\n  end\n`;
    });
    return `
local function sortedKeys(t)
  local keys = {}
  if type(t) ~= "table" then return keys end
  for k, _ in pairs(t) do
    if type(k) == "string" then keys[#keys + 1] = k end
  end
  table.sort(keys)
  return keys
end

function GetDependencies(desiredObj)
  local deps = {}
  local seen = {}
  local metadata = desiredObj.metadata
  local namespace = metadata.namespace
  local spec = desiredObj.spec
  local function addObject(apiVersion, kind, name)
    if type(name) ~= "string" or name == "" then return end
    local key = apiVersion .. "/" .. kind .. "/" .. name
    if seen[key] then return end
    seen[key] = true
    deps[#deps + 1] = { apiVersion = apiVersion, kind = kind, namespace = namespace, name = name }
  end
  local function add(kind, name)
    addObject("v1", kind, name)
  end
${blocks.join("")}  return deps
end
`;
}

/** A Lua string literal. */
const luaString = (s: string) => JSON.stringify(s);

/** What an IrisCluster depends on: what the registry of followers says Karmada finds beside it. */
export const DEPENDENCIES_LUA = dependenciesLua(dependencyLookups());

/** `ResourceInterpreterCustomization.spec` for IrisCluster. */
export function irisInterpreterSpec() {
    return {
        target: { apiVersion: IrisCluster.apiVersion, kind: IrisCluster.kind },
        customizations: {
            healthInterpretation: { luaScript: HEALTH_LUA },
            statusReflection: { luaScript: REFLECT_LUA },
            statusAggregation: { luaScript: AGGREGATE_LUA },
            retention: { luaScript: RETAIN_LUA },
            dependencyInterpretation: { luaScript: DEPENDENCIES_LUA },
        },
    };
}

/** Arguments of an IrisClusterInterpreter. */
export interface IrisClusterInterpreterArgs {
    /** The Karmada API its objects are made in. */
    karmada: KarmadaContext;
}

/** The ResourceInterpreterCustomization for IrisCluster. */
export class IrisClusterInterpreter extends pulumi.ComponentResource {
    /** The customization object in the Karmada API. */
    public readonly customization: k8s.apiextensions.CustomResource;

    constructor(name: string, args: IrisClusterInterpreterArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:IrisClusterInterpreter", name, {}, opts);
        this.customization = new k8s.apiextensions.CustomResource(
            `${name}-customization`,
            {
                apiVersion: KARMADA_API_VERSIONS.config,
                kind: KARMADA_KINDS.interpreterCustomization,
                metadata: { name: "kamino-iriscluster" },
                spec: irisInterpreterSpec(),
            },
            { parent: this, provider: args.karmada.provider, deletedWith: args.karmada.lifecycle },
        );
        this.registerOutputs({});
    }
}
