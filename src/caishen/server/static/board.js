// The table drawn from one TableView (live play and replays share it).
"use strict";

const POS = ["bottom", "right", "top", "left"];

function windName(seat) { return t("winds")[seat]; }

// A bot's seat as "bot 2" in the page's language (its stored name, "greedy bot 2", has the level)
function botName(name) { return `${t("bot")} ${(/\d+$/.exec(name) || [""])[0]}`.trim(); }

function meldEl(m) {
  return h("span", { class: "meld", title: m.kind }, m.tiles.map((x) => tileEl(x, { size: "sm" })));
}

function seatEl(view, sv, pos, opts) {
  const turn = view.phase !== "over" && (view.current === sv.seat && (view.phase === "turn" || view.phase === "sea_floor"));
  const who = h("div", { class: "who" },
    h("span", { class: "pill wind", text: windName(sv.seat) }),
    // a bot's seat: "bot 2" and its level (its stored name, "greedy bot 2", is the tooltip)
    h("span", { class: "name", text: sv.bot ? botName(sv.name) : sv.name, title: sv.name }),
    sv.dealer ? h("span", { class: "pill dealer", text: t("dealer") }) : null,
    sv.bot ? h("span", { class: "pill", text: t("level_" + sv.bot) }) : null,
    sv.away ? h("span", { class: "pill away", text: t("away") }) : null,
    !sv.bot && !sv.connected ? h("span", { class: "pill off", text: t("disconnected") }) : null,
    view.me === sv.seat ? h("span", { class: "pill", text: t("you") }) : null);
  const el = h("div", { class: `seat pos-${pos}${turn ? " turn" : ""}`, "data-seat": sv.seat }, who);
  const lastHere = opts.lastDiscardSeat === sv.seat;
  if (sv.flowers.length) el.append(h("div", { class: "flowers" }, sv.flowers.map((f) => tileEl(f, { size: "sm", own: f === "f" + (sv.seat + 1) }))));
  if (sv.melds.length) el.append(h("div", { class: "melds" }, sv.melds.map(meldEl)));
  if (pos !== "bottom" || view.me === null) {
    const shown = view.all_tiles ? view.all_tiles[sv.seat] : null;
    // a flower is wild only for its own seat (坐花, L7)
    const own = "f" + (sv.seat + 1);
    const wilds = new Set(view.wilds);
    el.append(h("div", { class: "backs" }, shown ? shown.map((x) => tileEl(x, { size: "sm",
      wild: wilds.has(x) && (x[0] !== "f" || x === own), own: x === own }))
      : Array.from({ length: sv.concealed }, () => tileEl("back", { size: "xs" }))));
  }
  el.append(h("div", { class: "discards" }, sv.discards.map((d, i) =>
    tileEl(d, { size: "sm", last: lastHere && i === sv.discards.length - 1 }))));
  return el;
}

function centerEl(view, opts) {
  const handLabel = view.hands_total ? t("handOf", view.hand + 1, view.hands_total) : t("hand", view.hand + 1);
  return h("div", { class: "center" },
    h("div", { text: handLabel }),
    h("div", {}, view.variant === "luoyang-gangci" ? t("ciTile") : t("indicator"), " ",
      view.indicator ? tileEl(view.indicator, { size: "sm" }) : "—"),
    view.wilds.length ? h("div", {}, t("wilds"), " ", view.wilds.map((w) => tileEl(w, { size: "sm", wild: true }))) : null,
    h("div", {}, t("wall"), " ", h("span", { class: "big", "data-testid": "wall", text: view.live_tiles }),
      view.sea_floor_tiles ? h("span", { class: "muted", text: ` +${view.sea_floor_tiles}` }) : null),
    h("div", { class: "timer", id: "timer" }),
    opts.centerExtra || null);
}

// Draw ``view`` into ``root``. opts: onDiscard(action) makes hand tiles clickable;
// lastDiscardSeat highlights that seat's newest discard.
function renderBoard(root, view, opts = {}) {
  const base = view.me === null ? 0 : view.me;
  const board = h("div", { class: "board" });
  for (const sv of view.seats) board.append(seatEl(view, sv, POS[(sv.seat - base + 4) % 4], opts));
  board.append(centerEl(view, opts));
  const bottom = board.querySelector(".pos-bottom");
  if (view.me !== null && bottom) {
    const wild = new Set(view.wilds);
    const discards = new Map(view.choices.filter((c) => c.kind === "discard").map((c) => [c.tile, c.action]));
    // the tile just drawn goes apart at the right end, as at a real table
    const tiles = view.tiles.slice();
    const drawnAt = opts.drawn ? tiles.lastIndexOf(opts.drawn) : -1;
    if (drawnAt >= 0) tiles.push(tiles.splice(drawnAt, 1)[0]);
    const hand = h("div", { class: "myhand", "data-testid": "myhand" }, tiles.map((x, i) => {
      const el = tileEl(x, { wild: wild.has(x), own: x === view.own_flower });
      if (drawnAt >= 0 && i === tiles.length - 1) { el.classList.add("drawn"); el.dataset.testid = "drawn"; }
      if (opts.onDiscard && discards.has(x)) {
        el.classList.add("can");
        el.addEventListener("click", () => opts.onDiscard(discards.get(x)));
      }
      return el;
    }));
    bottom.insertBefore(hand, bottom.children[1] || null);
  }
  root.replaceChildren(board);
}

function howText(how) {
  const key = (how || "").replace(/-/g, "_");  // the record writes "self-draw", "rob-kong"
  return { self_draw: t("selfDraw"), discard: t("onDiscard"), rob_kong: t("robKong"), bulldozer: t("bulldozer"),
    kong_replacement: t("kongReplacement"), sea_floor: t("seaFloor") }[key] || how || "";
}

// The itemised score table of a finished hand (rule, item, 胡, 台, chips).
function scoreTableEl(end) {
  const box = h("div", { class: "scoretable", "data-testid": "score-table" });
  box.append(h("h2", { text: `${t("scoreTable")} · ${t("hand", end.index + 1)}` }));
  if (end.winner === null) {
    // a declared draw 叫和局 names its rule and who declared it; any other draw its reason (L17)
    const why = end.draw_type ? t(end.draw_type) + t("comma") + t("declaredBy", end.lines[end.declared_by].name)
      : end.draw ? t("draw_" + end.draw) : "";
    box.append(h("p", { "data-testid": "draw", text: why ? t("drawWhy", why) : t("drawGame") }));
  }
  else {
    const gave = end.discarder === null || end.discarder === undefined ? null : end.lines[end.discarder];
    box.append(h("p", {}, `${t("winner")}: `, h("b", { text: end.lines[end.winner].name }),
      ` · ${end.win_type ? t(end.win_type) : howText(end.how)} `, end.tile ? tileEl(end.tile, { size: "sm" }) : null,
      gave ? h("span", { "data-testid": "discarder", text: " " + t("fromSeat", `${windName(gave.seat)} ${gave.name}`) }) : null));
  }
  const payments = end.payments || [];
  if (payments.length) {  // Gangci: every payment of the hand, kongs first (G2)
    box.append(h("table", { "data-testid": "payments" },
      h("tr", {}, h("th", { text: t("rule") }), h("th", { text: t("item") }), h("th", { text: t("from") }),
        h("th", { text: t("to") }), h("th", { class: "num", text: t("amount") })),
      payments.map((p) => h("tr", {}, h("td", { text: p.rule }),
        h("td", { text: LANG === "zh" ? p.chinese : `${p.english} ${p.chinese}` }),
        h("td", { text: windName(p.payer) }), h("td", { text: windName(p.payee) }),
        h("td", { class: "num", text: `${p.amount} (${p.formula})` })))));
  }
  for (const line of end.lines) {
    const cls = line.chips > 0 ? "pos" : line.chips < 0 ? "neg" : "";
    box.append(h("div", { class: "scoreseat" + (line.winner ? " winner" : "") },
      h("div", { class: "head" }, h("span", { text: windName(line.seat) }), h("span", { text: line.name }),
        handEl(line.hand),
        // 胡/台 only where a win was counted in them (a draw scores nothing; Gangci pays by G2)
        payments.length || end.winner === null ? null
          : h("span", {}, `${line.fu}${t("fu")} ${line.tai}${t("tai")} → ${t("total")} ${line.total}`),
        line.limit ? h("span", { text: line.limit }) : null,
        h("span", { class: cls, text: `${t("chipsWon")} ${line.chips > 0 ? "+" : ""}${line.chips}` }),
        h("span", { class: "muted", text: `${t("chipsAfter")} ${line.chips_after}` })),
      line.items.length ? h("table", {},
        h("tr", {}, h("th", { text: t("rule") }), h("th", { text: t("item") }), h("th", { class: "num", text: t("fu") }), h("th", { class: "num", text: t("tai") })),
        // a note is an item worth 0 under the room's rules (e.g. 边张 without edge_single_wait_fu, L20.6): a grey 0
        line.items.map((it) => h("tr", { class: it.note === "note" ? "note" : null }, h("td", { text: it.rule }),
          h("td", { text: LANG === "zh" ? it.chinese : `${it.english} ${it.chinese}` }),
          h("td", { class: "num", text: it.fu || (it.note === "note" ? "0" : "") }),
          h("td", { class: "num", text: it.tai || (it.note === "limit" ? "★" : "") })))) : null));
  }
  return box;
}

function standingsEl(list) {
  return h("table", { class: "list", "data-testid": "standings" },
    h("tr", {}, h("th", { text: t("rank") }), h("th", { text: t("name") }), h("th", { class: "num", text: t("chips") })),
    list.map((s) => h("tr", {}, h("td", { text: s.rank }), h("td", { text: s.name }), h("td", { class: "num", text: s.chips }))));
}
