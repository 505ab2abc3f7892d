// The small part of fengari's API the Lua tests use (the package ships no types).
declare module "fengari" {
    type LuaState = unknown;
    export const lua: {
        LUA_OK: number;
        lua_tojsstring(L: LuaState, idx: number): string;
        lua_gettop(L: LuaState): number;
    };
    export const lauxlib: {
        luaL_newstate(): LuaState;
        luaL_dostring(L: LuaState, s: Uint8Array): number;
    };
    export const lualib: { luaL_openlibs(L: LuaState): void };
    export function to_luastring(s: string): Uint8Array;
}
