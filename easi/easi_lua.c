/**
 * @file easi_lua.c  !LuaMap with Lua 5.4 (Debian's liblua5.4): one lua_State per component and per
 * evaluating thread (sq_elua), made when first used.  Two forms, as easi has them:
 *   returns: [a, b]  function: "function f (x) ... return {a = .., b = ..} end"   (x["name"] and x[1..n])
 *   map: {a: "return ...", b: "..."}   (each chunk sees the table x and the inputs as globals)
 * The code is kept with leading newlines so that Lua's messages give the easi file's line numbers.
 */
#include "easi_impl.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sq_elua {
  int n;
  lua_State **L;
  const struct sq_easi *m;
};

/* A bound on the work of one call: the hook runs every 10^6 instructions, and the 100th time in one
 * call stops it (an endless loop would otherwise hang the set-up).  The count lives in the state's
 * extra space. */
enum { EL_HOOK_EVERY = 1000000, EL_HOOK_MAX = 100 };

static void el_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  intptr_t *count = (intptr_t *)lua_getextraspace(L);
  if (++*count >= EL_HOOK_MAX) luaL_error(L, "more than 10^8 Lua instructions for one point (an endless loop?)");
}

static void el_arm(lua_State *L) { *(intptr_t *)lua_getextraspace(L) = 0; }

/* a state with the component's code loaded: the function form runs the chunk (defines f); the map form
 * keeps each chunk as a function in the registry at index 1..nout of a table at REGISTRY["sq"] */
static lua_State *el_open(const sq_ecomp *c, char *msg, size_t size) {
  lua_State *L = luaL_newstate();
  if (!L) {
    snprintf(msg, size, "%s:%d: !LuaMap: out of memory", c->file, c->line);
    return NULL;
  }
  luaL_openlibs(L);
  lua_sethook(L, el_hook, LUA_MASKCOUNT, EL_HOOK_EVERY);
  el_arm(L);
  char chunk[1024];
  snprintf(chunk, sizeof(chunk), "@%s", c->file);
  if (c->lua) {
    if (luaL_loadbuffer(L, c->lua, strlen(c->lua), chunk) || lua_pcall(L, 0, 0, 0)) {
      snprintf(msg, size, "%s:%d: !LuaMap: %s", c->file, c->line, lua_tostring(L, -1));
      lua_close(L);
      return NULL;
    }
    lua_getglobal(L, "f");
    int isf = lua_isfunction(L, -1);
    lua_pop(L, 1);
    if (!isf) {
      snprintf(msg, size, "%s:%d: !LuaMap: 'function' does not define 'function f (x)'", c->file, c->line);
      lua_close(L);
      return NULL;
    }
  } else {
    lua_createtable(L, c->nout, 0);
    for (int k = 0; k < c->nout; ++k) {
      if (luaL_loadbuffer(L, c->luas[k], strlen(c->luas[k]), chunk)) {
        snprintf(msg, size, "%s:%d: !LuaMap: '%s': %s", c->file, c->line, c->out[k], lua_tostring(L, -1));
        lua_close(L);
        return NULL;
      }
      lua_rawseti(L, -2, k + 1);
    }
    lua_setfield(L, LUA_REGISTRYINDEX, "sq");
  }
  return L;
}

int sq_elua_check(const sq_ecomp *c, char *msg, size_t size) {
  lua_State *L = el_open(c, msg, size);
  if (!L) return -1;
  lua_close(L);
  return 0;
}

sq_elua *sq_elua_new(const struct sq_easi *m) {
  sq_elua *e = calloc(1, sizeof(*e));
  if (!e) return NULL;
  e->m = m;
  e->n = m->nlua;
  if (e->n && !(e->L = calloc((size_t)e->n, sizeof(*e->L)))) {
    free(e);
    return NULL;
  }
  return e;
}

void sq_elua_free(sq_elua *e) {
  if (!e) return;
  for (int i = 0; i < e->n; ++i)
    if (e->L[i]) lua_close(e->L[i]);
  free(e->L);
  free(e);
}

static void el_push_x(lua_State *L, const sq_ecomp *c, const double *x) {
  lua_createtable(L, c->nin, c->nin);
  for (int j = 0; j < c->nin; ++j) {
    lua_pushnumber(L, x[j]);
    lua_setfield(L, -2, c->in[j]);
    lua_pushnumber(L, x[j]);
    lua_rawseti(L, -2, j + 1);
  }
}

int sq_elua_eval(sq_elua *e, const sq_ecomp *c, const double *x, int nw, const int *want, double *res, char *msg,
                 size_t size) {
  lua_State *L = e->L[c->lua_id];
  if (!L && !(L = e->L[c->lua_id] = el_open(c, msg, size))) return -1;
  int top = lua_gettop(L);
  el_arm(L);
  if (c->lua) {
    lua_getglobal(L, "f");
    el_push_x(L, c, x);
    if (lua_pcall(L, 1, 1, 0)) {
      snprintf(msg, size, "%s:%d: !LuaMap: %s", c->file, c->line, lua_tostring(L, -1));
      lua_settop(L, top);
      return -1;
    }
    if (!lua_istable(L, -1)) {
      snprintf(msg, size, "%s:%d: !LuaMap: f (x) returned a %s, not a table {name = value, ...}", c->file, c->line,
               luaL_typename(L, -1));
      lua_settop(L, top);
      return -1;
    }
    for (int k = 0; k < nw; ++k) {
      lua_getfield(L, -1, c->out[want[k]]);
      int isnum = 0;
      res[k] = lua_tonumberx(L, -1, &isnum);
      lua_pop(L, 1);
      if (!isnum) {
        snprintf(msg, size, "%s:%d: !LuaMap: f (x) returned no number for '%s' (it is in 'returns')", c->file, c->line,
                 c->out[want[k]]);
        lua_settop(L, top);
        return -1;
      }
    }
  } else {
    for (int j = 0; j < c->nin; ++j) {
      lua_pushnumber(L, x[j]);
      lua_setglobal(L, c->in[j]);
    }
    el_push_x(L, c, x); /* after the inputs: an input named x does not hide the table */
    lua_setglobal(L, "x");
    lua_getfield(L, LUA_REGISTRYINDEX, "sq");
    for (int k = 0; k < nw; ++k) {
      lua_rawgeti(L, -1, want[k] + 1);
      if (lua_pcall(L, 0, 1, 0)) {
        snprintf(msg, size, "%s:%d: !LuaMap: '%s': %s", c->file, c->line, c->out[want[k]], lua_tostring(L, -1));
        lua_settop(L, top);
        return -1;
      }
      int isnum = 0;
      res[k] = lua_tonumberx(L, -1, &isnum);
      lua_pop(L, 1);
      if (!isnum) {
        snprintf(msg, size, "%s:%d: !LuaMap: the code of '%s' returned no number", c->file, c->line, c->out[want[k]]);
        lua_settop(L, top);
        return -1;
      }
    }
  }
  lua_settop(L, top);
  return 0;
}
