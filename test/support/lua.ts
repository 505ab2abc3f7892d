// Runs Karmada interpreter Lua scripts the way Karmada calls them: the named function with
// Kubernetes objects as Lua tables, its result converted back. fengari is Lua 5.3 in JavaScript;
// Karmada's gopher-lua is 5.1, so the scripts keep to the common subset.
import { lauxlib, lua, lualib, to_luastring } from "fengari";

/** A JavaScript value as Lua source. */
export function toLua(v: unknown): string {
    if (v === null || v === undefined) return "nil";
    if (typeof v === "string") return JSON.stringify(v);
    if (typeof v === "number" || typeof v === "boolean") return String(v);
    if (Array.isArray(v)) return `{${v.map(toLua).join(", ")}}`;
    return `{${Object.entries(v as Record<string, unknown>)
        .map(([k, x]) => `[${JSON.stringify(k)}] = ${toLua(x)}`)
        .join(", ")}}`;
}

// Our own small encoder: a table with keys 1..n is an array, any other table an object.
const ENCODER = `
local function __encode(v)
  local t = type(v)
  if t == "nil" then return "null" end
  if t == "boolean" or t == "number" then return tostring(v) end
  if t == "string" then return '"' .. v:gsub('\\\\', '\\\\\\\\'):gsub('"', '\\\\"'):gsub('\\n', '\\\\n') .. '"' end
  local n = #v
  local count = 0
  for _ in pairs(v) do count = count + 1 end
  local parts = {}
  if n > 0 and n == count then
    for i = 1, n do parts[i] = __encode(v[i]) end
    return "[" .. table.concat(parts, ",") .. "]"
  end
  for k, x in pairs(v) do parts[#parts + 1] = __encode(tostring(k)) .. ":" .. __encode(x) end
  return "{" .. table.concat(parts, ",") .. "}"
end
`;

/** Calls `fn` defined by `script` with `args`, returning its result as JSON-shaped data. */
export function callLua(script: string, fn: string, ...args: unknown[]): unknown {
    const L = lauxlib.luaL_newstate();
    lualib.luaL_openlibs(L);
    const program = `${script}\n${ENCODER}\nreturn __encode(${fn}(${args.map(toLua).join(", ")}))`;
    if (lauxlib.luaL_dostring(L, to_luastring(program)) !== lua.LUA_OK) {
        throw new Error(`Lua error in ${fn}: ${lua.lua_tojsstring(L, -1)}`);
    }
    return JSON.parse(lua.lua_tojsstring(L, -1));
}
