// Replay viewer: a finished hand move by move, from one seat or from above.
"use strict";

const PARTS = location.pathname.split("/");
const CODE = PARTS[2];
const HAND = Number(PARTS[3]);
let FRAMES = [];
let at = 0;
let timer = null;

// A record's move ("discard 2z", "pong 5p") in words and tiles: "W: Discard [2z]".
function moveEls(seat, move) {
  const [kind, ...rest] = move.split(" ");
  let tiles = rest.join("").match(/\d[mpsz]|f\d/g) || [];
  // "chow 4p 3p": the claimed tile and the sequence's lowest; shown as the sequence
  if (kind === "chow" && tiles.length === 2) tiles = [0, 1, 2].map((i) => `${Number(tiles[1][0]) + i}${tiles[1][1]}`);
  return [`${windName(seat)}: ${t(kind)} `, ...tiles.map((x) => tileEl(x, { size: "xs" }))];
}

// The seat list names who sat where ("E Ann"), not the winds alone: one's own view is found at once.
function nameSeats(view) {
  const opts = document.getElementById("seat").options;
  for (const s of view.seats) {
    if (opts[s.seat + 1]) opts[s.seat + 1].textContent = `${windName(s.seat)} ${playerName(s.name)}`;
  }
}

function show() {
  const f = FRAMES[at];
  if (!f) return;
  nameSeats(f.view);
  document.getElementById("slider").value = at;
  const last = f.seat === null ? null : f.seat;
  renderBoard(document.getElementById("boardbox"), f.view, { lastDiscardSeat: f.move && f.move.startsWith("discard") ? last : null, viewpoint: true });
  document.getElementById("stepline").replaceChildren(`${at}/${FRAMES.length - 1} `, ...(f.move ? moveEls(f.seat, f.move) : []));
  const end = document.getElementById("endbox");
  end.replaceChildren();
  if (f.view.hand_end) end.append(h("section", { class: "card", style: "color:#000;margin:.5rem" }, scoreTableEl(f.view.hand_end)));
}

async function load() {
  const s = document.getElementById("seat").value;
  let data;
  try {
    data = await api(`/api/matches/${CODE}/hands/${HAND}/replay${s === "" ? "" : "?seat=" + s}`);
  } catch (err) {  // no such match or hand (a mistyped link), or one not finished yet: said, not a blank page
    FRAMES = [];
    document.getElementById("stepline").replaceChildren();
    document.getElementById("boardbox").replaceChildren(h("section", { class: "card", style: "color:#000;margin:.5rem" },
      h("p", { class: "err", "data-testid": "replay-error", text: err.code === "no_room" ? t("err_no_room")
        : err.code === "hand_in_play" ? t("handInPlay", HAND + 1)
        : t("noReplay", err.code === "no_hand" ? t("handMissing", HAND + 1) : err.message) }),
      h("p", {}, h("a", { href: `/m/${CODE}`, text: t("result") }))));
    return;
  }
  FRAMES = data.frames;
  document.getElementById("slider").max = FRAMES.length - 1;
  at = Math.min(at, FRAMES.length - 1);
  show();
}

function main() {
  setLang(LANG);
  document.getElementById("back").href = `/m/${CODE}`;
  const sel = document.getElementById("seat");
  sel.append(h("option", { value: "", text: t("fromAbove") }));
  for (let s = 0; s < 4; s++) sel.append(h("option", { value: s, text: windName(s) }));
  sel.addEventListener("change", load);
  document.getElementById("langslot").append(langButton(show));
  document.getElementById("prev").addEventListener("click", () => { at = Math.max(0, at - 1); show(); });
  document.getElementById("next").addEventListener("click", () => { at = Math.min(FRAMES.length - 1, at + 1); show(); });
  document.getElementById("slider").addEventListener("input", (e) => { at = Number(e.target.value); show(); });
  // Play turns into Pause while it plays (a review: it still said Play, with no way to stop in sight)
  const play = document.getElementById("play");
  const stop = () => { clearInterval(timer); timer = null; play.textContent = t("play"); };
  play.addEventListener("click", () => {
    if (timer) { stop(); return; }
    if (at >= FRAMES.length - 1) at = 0;  // at the end: from the start again
    play.textContent = t("pause");
    timer = setInterval(() => { if (at >= FRAMES.length - 1) { stop(); return; } at += 1; show(); }, 600);
  });
  load();
}

main();
