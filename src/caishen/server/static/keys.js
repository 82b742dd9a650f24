// Keyboard play: ← → pick a tile in your hand, or type its name (5p, 7z, f2); Enter discards
// the tile picked; W win 胡, P pong 碰, C chow 吃, K kong 杠, D declare a draw, X or Space
// pass. The keys are listed on the page (KEYS_HELP).
"use strict";

const KEY = { picked: null, digit: "" };
// A touch screen: a tap picks a tile (raised), a second tap on it discards it. Phone tiles are
// some 20 px wide, edge to edge: one tap that discarded at once threw a neighbour away.
const TAP_TWICE = window.matchMedia("(pointer: coarse)").matches;
const CLAIM_KEYS = { w: ["win"], p: ["pong"], c: ["chow"], k: ["exposed_kong", "added_kong", "concealed_kong"], d: ["declare_draw"], x: ["pass"], " ": ["pass"] };

function keysHelp() { return t("keysHelp"); }

function handTiles() { return [...document.querySelectorAll("[data-testid=myhand] .tile")]; }

function pick(i) {
  const tiles = handTiles();
  if (!tiles.length) return;
  KEY.picked = Math.max(0, Math.min(tiles.length - 1, i));
  render();
}

function onKey(e) {
  if (!VIEW || e.ctrlKey || e.metaKey || e.altKey || (e.target && /INPUT|SELECT|TEXTAREA/.test(e.target.tagName))) return;
  const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  const tiles = handTiles();
  if (key === "ArrowLeft" || key === "ArrowRight") {
    const at = KEY.picked === null ? (key === "ArrowLeft" ? tiles.length : -1) : KEY.picked;
    pick(at + (key === "ArrowLeft" ? -1 : 1));
    e.preventDefault();
    return;
  }
  if (key === "Enter") {
    const el = KEY.picked === null ? null : tiles[KEY.picked];
    if (el && el.classList.contains("can")) { el.click(); KEY.picked = null; }
    e.preventDefault();
    return;
  }
  // a tile's name: a digit, then its suit (m p s z; f for a flower: f then its digit)
  if (/^[1-9]$/.test(key) && (KEY.digit === "" || KEY.digit === "f")) {
    const name = KEY.digit === "f" ? "f" + key : null;
    KEY.digit = name ? "" : key;
    if (name) pickName(name);
    return;
  }
  if (KEY.digit && /^[mpsz]$/.test(key)) {
    const name = KEY.digit + key;
    KEY.digit = "";
    pickName(name);
    return;
  }
  KEY.digit = key === "f" ? "f" : "";
  if (key === "f") return;
  const kinds = CLAIM_KEYS[key];
  if (!kinds) return;
  const btn = [...document.querySelectorAll("#actions button[data-action]")].find((b) => kinds.includes(b.dataset.kind));
  if (btn) { btn.click(); e.preventDefault(); }
}

function pickName(name) {
  const tiles = handTiles();
  // the rightmost copy: the tile just drawn if it is that one
  for (let i = tiles.length - 1; i >= 0; i--) if (tiles[i].dataset.tile === name) { pick(i); return; }
}

document.addEventListener("keydown", onKey);
