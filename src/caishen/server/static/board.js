// The table drawn from one TableView (live play and replays share it).
"use strict";

const POS = ["bottom", "right", "top", "left"];

function windName(seat) { return t("winds")[seat]; }

function meldEl(m, size = "xs") {
  return setEl(shownSet(m.tiles, m.kind === "chow"), size, m.kind);
}

// A seat at the table: who sits there, its flowers and melds beside its hand, its hand (yours
// face up at the bottom; the others' as backs, or face up from above and at the hand's end).
function seatEl(view, sv, pos, opts) {
  const turn = view.phase !== "over" && (view.current === sv.seat && (view.phase === "turn" || view.phase === "sea_floor"));
  const bot = sv.bot || botLevel(sv.name);  // a replay's frames have only the stored name
  const who = h("div", { class: "who" },
    h("span", { class: "pill wind", text: windName(sv.seat) }),
    // a bot's seat: "bot 2" and its level (its stored name, "greedy bot 2", is the tooltip)
    h("span", { class: "name", text: bot ? botName(sv.name) : sv.name, title: sv.name }),
    sv.dealer ? h("span", { class: "pill dealer", text: t("dealer") }) : null,
    bot ? h("span", { class: "pill", text: t("level_" + bot) }) : null,
    sv.away ? h("span", { class: "pill away", text: t("away") }) : null,
    !bot && !sv.connected ? h("span", { class: "pill off", text: t("disconnected") }) : null,
    // a replay from a seat is that seat's view, not yours: "seen from here" (opts.viewpoint)
    view.me === sv.seat ? h("span", { class: "pill", text: t(opts && opts.viewpoint ? "seenFrom" : "you") }) : null,
    pos !== "bottom" ? h("span", { class: "pill count", title: t("concealedCount") }, h("span", { class: "miniback" }), String(sv.concealed)) : null);
  const el = h("div", { class: `seat pos-${pos}${turn ? " turn" : ""}`, "data-seat": sv.seat }, who);
  const side = h("div", { class: "side" });
  const own = "f" + ((sv.seat - view.dealer + 4) % 4 + 1);  // 坐花 by wind: 春 for the dealer (L1, L2)
  if (sv.flowers.length) side.append(h("div", { class: "flowers" }, sv.flowers.map((f) => tileEl(f, { size: "xs", own: f === own }))));
  if (sv.melds.length) side.append(h("div", { class: "melds" }, sv.melds.map((m) => meldEl(m))));
  if (pos !== "bottom" || view.me === null) {
    const shown = view.all_tiles ? view.all_tiles[sv.seat] : null;
    // what is wild for this seat, as the server says (the indicator's kind, 花财神 under a
    // flower indicator, L5, and the seat's own flower 坐花, L7); an older view: its own flower only
    const wilds = new Set(view.all_wilds ? view.all_wilds[sv.seat] : view.wilds.filter((x) => x[0] !== "f" || x === own));
    el.append(h("div", { class: "backs" + (shown ? " open" : "") }, shown ? shown.map((x) => tileEl(x, { size: "xs",
      wild: wilds.has(x), own: x === own }))
      : Array.from({ length: sv.concealed }, () => tileEl("back", { size: "xs" }))));
  }
  el.append(side);
  return el;
}

// A seat's discards: a river of rows in front of it, the newest marked.
function riverEl(sv, pos, opts) {
  const lastHere = opts.lastDiscardSeat === sv.seat;
  return h("div", { class: `river river-${pos}`, "data-river": sv.seat }, sv.discards.map((d, i) =>
    tileEl(d, { size: "river", last: lastHere && i === sv.discards.length - 1 })));
}

// From above: does some seat have a wild of its own (its 坐花) beside the common ones?
function ownWilds(view) {
  return !!view.all_wilds && view.all_wilds.some((ws) => ws.some((w) => !view.wilds.includes(w)));
}

function centerEl(view, opts) {
  const handLabel = view.hands_total ? t("handOf", view.hand + 1, view.hands_total) : t("hand", view.hand + 1);
  const dealer = view.seats.find((s) => s.dealer);
  const turnSeat = view.phase === "over" ? null : view.current;
  return h("div", { class: "center" },
    h("div", { class: "round", text: handLabel }),
    h("div", { class: "row-c" }, h("span", { class: "lbl", text: view.variant === "luoyang-gangci" ? t("ciTile") : t("indicator") }),
      view.indicator ? tileEl(view.indicator, { size: "sm" }) : "—"),
    // from above (a replay): what is wild for every seat; a seat's own flower (坐花, L7) is its
    // own alone, marked in its hand, and the centre says so instead of listing it as everyone's
    view.wilds.length || ownWilds(view) ? h("div", { class: "row-c", "data-testid": "wilds" }, h("span", { class: "lbl", text: t("wilds") }),
      view.wilds.map((w) => tileEl(w, { size: "sm", wild: true })),
      ownWilds(view) ? h("span", { class: "muted small", "data-testid": "own-wilds", text: (view.wilds.length ? " + " : "") + t("ownFlowerWild") }) : null) : null,
    h("div", { class: "row-c" }, h("span", { class: "lbl", text: t("wall") }), h("span", { class: "big", "data-testid": "wall", text: view.live_tiles }),
      view.sea_floor_tiles ? h("span", { class: "muted", "data-testid": "sea-floor", title: t("seaFloorLeft", view.sea_floor_tiles),
        text: ` +${view.sea_floor_tiles} ${t("seaFloorShort")}` }) : null),  // (a phone shows no title)
    h("div", { class: "row-c small" }, dealer ? `${t("dealer")} ${windName(dealer.seat)}` : "",
      turnSeat === null ? "" : h("span", { class: "turnmark", "data-testid": "turn", text: ` · ${t("turnOf", windName(turnSeat))}` })),
    h("div", { class: "timer", id: "timer" }),
    opts.centerExtra || null);
}

// Draw ``view`` into ``root`` as a square table seen from your seat: you at the bottom, the
// others right, top and left; each seat's river in front of it around the centre.
// opts: onDiscard(action) makes hand tiles clickable; lastDiscardSeat marks that seat's
// newest discard; drawn: the tile just drawn, set apart; picked: the tile the keyboard points at;
// onPick(i): a tap on a tile not picked picks it (a touch screen: TAP_TWICE), a second discards.
function renderBoard(root, view, opts = {}) {
  const base = view.me === null ? 0 : view.me;
  const board = h("div", { class: "board" });
  const table = h("div", { class: "felt" });
  for (const sv of view.seats) {
    const pos = POS[(sv.seat - base + 4) % 4];
    board.append(seatEl(view, sv, pos, opts));
    table.append(riverEl(sv, pos, opts));
  }
  table.append(centerEl(view, opts));
  board.append(table);
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
      el.dataset.index = i;
      if (drawnAt >= 0 && i === tiles.length - 1) { el.classList.add("drawn"); el.dataset.testid = "drawn"; }
      if (opts.picked === i) el.classList.add("picked");
      if (opts.onDiscard && discards.has(x)) {
        el.classList.add("can");
        el.addEventListener("click", () => {
          if (opts.onPick && opts.picked !== i) opts.onPick(i);
          else opts.onDiscard(discards.get(x));
        });
      }
      return el;
    }));
    bottom.insertBefore(hand, bottom.querySelector(".side"));
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
    const why = end.draw_type ? t(end.draw_type) + t("comma") + t("declaredBy", playerName(end.lines[end.declared_by].name))
      : end.draw ? t("draw_" + end.draw) : "";
    box.append(h("p", { "data-testid": "draw", text: why ? t("drawWhy", why) : t("drawGame") }));
  }
  else {
    const gave = end.discarder === null || end.discarder === undefined ? null : end.lines[end.discarder];
    box.append(h("p", {}, `${t("winner")}: `, h("b", { text: playerName(end.lines[end.winner].name) }),
      ` · ${end.win_type ? t(end.win_type) : howText(end.how)} `, end.tile ? tileEl(end.tile, { size: "sm" }) : null,
      gave ? h("span", { "data-testid": "discarder", text: " " + t("fromSeat", `${windName(gave.seat)} ${playerName(gave.name)}`) }) : null));
    // Gangci's win types are named in the source's words: what each one is, under it
    if (end.win_type) box.append(h("p", { class: "muted", "data-testid": "win-explain", text: t("explain_" + end.win_type) }));
  }
  const payments = end.payments || [];
  if (payments.length) {  // Gangci: every payment of the hand, kongs first (G2)
    box.append(h("table", { class: "payments", "data-testid": "payments" },
      h("tr", {}, h("th", { text: t("rule") }), h("th", { text: t("item") }), h("th", { text: t("from") }),
        h("th", { text: t("to") }), h("th", { class: "num", text: t("amount") })),
      payments.map((p) => h("tr", {}, h("td", { class: "rid", text: p.rule }),
        h("td", { text: LANG === "zh" ? p.chinese : `${itemEn(p.english)} ${p.chinese}` }),
        h("td", { text: seatName(end, p.payer) }), h("td", { text: seatName(end, p.payee) }),
        h("td", { class: "num", text: String(p.formula) === String(p.amount) ? String(p.amount) : `${p.amount} (${p.formula})` })))));
  }
  if (end.sets && end.sets.length) {  // the winning hand as the sets that were scored
    // a hand of pairs names its form (八对半): its sets are pairs, not the usual sets and a pair
    box.append(h("p", { class: "sets", "data-testid": "sets" }, `${t(end.form === "pairs" ? "scoredPairs" : "scoredSets")}: `,
      end.sets.map((g) => h("span", { class: "set", title: g }, scoredSetEl(g)))));
  }
  // who paid whom: each seat's chips are what it got less what it paid (Gangci's payments
  // above are that table already, each with its formula)
  const transfers = payments.length ? [] : end.transfers || [];
  if (transfers.length) {
    box.append(h("table", { class: "transfers", "data-testid": "transfers" },
      h("tr", {}, h("th", { text: t("from") }), h("th", { text: t("to") }), h("th", { class: "num", text: t("chips") }),
        h("th", { text: t("rule") }), h("th", { text: t("how") })),
      transfers.map((x) => h("tr", {}, h("td", { text: seatName(end, x.payer) }), h("td", { text: seatName(end, x.payee) }),
        h("td", { class: "num", "data-testid": "transfer-chips", text: x.chips }),
        h("td", { class: "rid", text: x.rule }), h("td", { text: transferText(x) })))));
  }
  if (end.broke && end.broke.length) {  // who went broke in this hand, and the chips lent to them (L25.4)
    const sep = LANG === "zh" ? "、" : ", ";
    const lent = (end.rebuys || []).filter((r) => r.chips < 0), got = (end.rebuys || []).filter((r) => r.chips > 0);
    const said = (rs) => rs.map((r) => `${playerName(r.name)} ${Math.abs(r.chips)}`).join(sep);
    box.append(h("p", { class: "broke", "data-testid": "went-broke", text: t("wentBroke", end.broke.map(playerName).join(sep)) }));
    if (got.length === 1) {
      box.append(h("p", { class: "muted", "data-testid": "rebuys", text: t("rebuyOne", lent.map((r) => playerName(r.name)).join(sep),
        playerName(got[0].name), got[0].chips) + (lent.length > 1 ? ` (${said(lent)})` : "") }));
    } else if (got.length) {
      box.append(h("p", { class: "muted", "data-testid": "rebuys", text: t("rebuyMany", said(lent), said(got)) }));
    }
  }
  if (end.fee) {  // the first hand: the chips after it count from what each brought less the fee (L25)
    box.append(h("p", { class: "muted", "data-testid": "table-fee", text: t("tableFee", end.start_chips, end.fee, end.start_chips - end.fee) }));
  }
  for (const line of end.lines) {
    const cls = line.chips > 0 ? "pos" : line.chips < 0 ? "neg" : "zero";
    box.append(h("div", { class: "scoreseat" + (line.winner ? " winner" : "") },
      h("div", { class: "head" }, h("span", { text: windName(line.seat) }), h("span", { text: playerName(line.name), title: line.name }),
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
          h("td", { text: LANG === "zh" ? it.chinese + wildNoteZh(it.english) : `${itemEn(it.english)} ${it.chinese}` }),
          h("td", { class: "num", text: it.fu || (it.note === "note" ? "0" : "") }),
          h("td", { class: "num", text: it.tai || (it.note === "limit" ? "★" : "") })))) : null,
      line.formula && !payments.length && end.winner !== null
        ? h("div", { class: "formula", "data-testid": "formula" }, formulaText(line.formula),
          // the winner's "+ 20" is the base every win gets (L23): said once, where it is added
          / \+ 20\) /.test(line.formula) ? h("span", { class: "muted", "data-testid": "base-note", text: t("baseNote") }) : null)
        : null));
  }
  return box;
}

// The wilds of an item, said in Chinese: its English label ends "(wild 5p=7z,f1=7z)" and its
// Chinese one said nothing of them (the CLI prints both labels side by side).
function wildNoteZh(english) {
  const m = / \(wild ([^)]*)\)$/.exec(english || "");
  if (!m) return "";
  const said = new Map();
  for (const [held, meant] of wildPairs(m[1])) {
    const text = `${tileNameZh(held)}当${tileNameZh(meant)}`;
    said.set(text, (said.get(text) || 0) + 1);
  }
  return `（财神 ${[...said].map(([text, n]) => (n > 1 ? `${text}×${n}` : text)).join("、")}）`;
}

// A scored set as the scoring wrote it, "123m(f4=1m)": its tiles with each wild drawn where it
// stands, as the tile held (marked 财), not as the tile it stood for (which only a tooltip said,
// and a phone has none). A set that does not parse is drawn as the text.
function scoredSetEl(g) {
  const m = /^([^(]*)\((.*)\)$/.exec(g);
  if (!m) return handEl(g);
  const groups = handGroups(m[1]);
  if (!groups || groups.length !== 1 || groups[0].meld) return handEl(g);
  const tiles = groups[0].tiles.map((x) => ({ x, wild: null }));
  for (const [held, meant] of wildPairs(m[2])) {
    const at = tiles.findLastIndex((c) => c.x === meant && c.wild === null);  // held tiles first
    if (at >= 0) tiles[at].wild = held;
  }
  return h("span", { class: "handtiles" }, h("span", { class: "run" }, tiles.map((c) => {
    if (c.wild === null) return tileEl(c.x, { size: "xs" });
    const el = tileEl(c.wild, { size: "xs", wild: true });
    el.dataset.stands = c.x;  // what it stood for
    el.title = `${c.wild} = ${c.x}`;
    return el;
  })));
}

// A payment's rule and how it is made, in the page's language (the settlement's own words).
function seatName(end, seat) {
  return `${windName(seat)} ${playerName(end.lines[seat].name)}`;
}

function transferText(x) {
  const key = "pay_" + x.rule.replace(".", "_");
  const rule = t(key) === key ? x.rule : t(key);  // a rule without a name of its own: its ID
  if (!x.what) return rule;
  // "total 120 胡 / 10 = 12 x2 dealer + bonus 9 = 33": a chip is 10 胡 (L24.1)
  const what = x.what.replace(/ \/ (\d+) = /, " ÷ $1 = ").replace(/ x2 /, " ×2 ");
  return `${rule}: ${LANG === "zh" ? what.replace(/^total /, "合计 ").replace(/ ×2 dealer/, " ×2 庄家").replace(/bonus/, "跟胡")
    .replace(/^difference/, "差额").replace(/limit 腊子 \((non-)?dealer\)/, (_, n) => n ? "腊子（闲家）" : "腊子（庄家）") : what}`;
}

// How a total is reached, as the CLI prints it ("total 80 = (18 + 20) x 2^1 = 76, rounded up…"),
// the power said as what it is: each 台 doubles ("× 2^3 (3 台 = ×8)"; "× 2^0 (0 台 = ×1)").
function formulaText(f) {
  const s = f.replace(/ x 2\^(\d+) /, (_, n) => ` × 2^${n} (${n} ${LANG === "zh" ? "台" : "tai"} = ×${2 ** Number(n)}) `);
  if (LANG !== "zh") return s;
  return s.replace(/^total /, "合计 ").replace("rounded up to a multiple of 10", "进到十位").replace(/capped at (\d+)/, "封顶 $1")
    .replace("limit ", "腊子 ").replace("; bonus counts 3 tai", "；跟胡按三台");
}

// Why a match is over: every hand played, who went broke (断筹), or dismissed by vote (解散).
function matchEndEl(end) {
  if (!end) return null;
  const text = end.ended_by === "broke" ? t("endedBroke", end.broke.map(playerName).join(t("comma")), end.hands)
    : end.ended_by === "dismissed" ? t("endedDismissed", end.hands) : t("endedHands", end.hands);
  return h("p", { class: "ended", "data-testid": "match-end", text });
}

function standingsEl(list) {
  return h("table", { class: "list", "data-testid": "standings" },
    h("tr", {}, h("th", { text: t("rank") }), h("th", { text: t("name") }), h("th", { class: "num", text: t("chips") })),
    list.map((s) => h("tr", {}, h("td", { text: s.rank }), h("td", { text: playerName(s.name), title: s.name }), h("td", { class: "num", text: s.chips }))));
}
