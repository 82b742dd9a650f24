// The public result page of a match: standings, every hand's score, fairness panel, replays.
"use strict";

const CODE = location.pathname.split("/").pop();

async function runVerify(out) {
  out.textContent = "…";
  try {
    const r = await api(`/api/matches/${CODE}/verify`);
    // the message is `caishen verify`'s own (English); in Chinese it is the tooltip
    out.textContent = `${r.ok ? "✔ " + t("verifyOk") : "✘ " + t("verifyFail")}` + (LANG === "zh" && r.ok ? "" : `: ${r.message}`);
    out.title = r.message;
    out.className = r.ok ? "pos" : "neg";
  } catch (err) { out.textContent = err.message; }
}

// The record checked by fair.js, here, without asking the server anything but the file.
async function runBrowserCheck(out, keyline) {
  out.textContent = t("browserChecking");
  try {
    const text = await (await fetch(`/api/matches/${CODE}/record`)).text();
    let rec = null;  // parsed once, for the key line and the checker
    try { rec = JSON.parse(text); } catch (e) { rec = null; }
    showCentreKey(rec, keyline);
    const r = await FairCheck.verifyRecord(rec ?? text);  // text that does not parse: the checker says so
    // the checker's message is English: a Chinese page says what was checked in its own words
    // and keeps the message as the tooltip (a failure's message is shown: it says where)
    const m = r.moves || {};
    const said = LANG === "zh" && r.ok ? t("browserCheckedAll", r.hands, r.draws)
      + (m.signed + m.server + m.unsigned ? t("browserCheckedMoves", m.signed, m.server, m.unsigned) : "") : r.message;
    out.textContent = `${r.ok ? "✔ " + t("verifiedBrowser") : "✘ " + t("browserFail")}: ${said} (${r.ms.toFixed(0)} ms)`;
    out.title = r.message;
    out.className = r.ok ? "pos" : "neg";
    out.dataset.ok = String(r.ok);
  } catch (err) { out.textContent = err.message; }
}

// The key the centre publishes, and whether the record names it (the record's own key proves
// nothing: anyone can sign a record with a key of their own and put it there).
async function showCentreKey(rec, line) {
  try {
    const published = (await api("/api/signing-key")).key;
    const named = rec?.signature?.key ?? null;
    line.replaceChildren(h("span", { class: "fair", text: t("centreKey", published) }), " ",
      named === published ? h("span", { class: "pos", "data-testid": "key-match", text: t("recordSignedByIt") })
        : h("span", { class: "neg", "data-testid": "key-match", text: t("recordOtherKey", named || "—") }));
  } catch (err) { line.textContent = err.message; }
}

async function render() {
  const main = document.getElementById("main");
  let res;
  try { res = await api(`/api/matches/${CODE}`); } catch (err) {
    main.replaceChildren(h("p", { class: "err", "data-testid": "result-error", text: err.message }), h("p", {}, h("a", { href: "/", text: t("lobby") })));
    return;
  }
  const parts = [];
  parts.push(h("section", { class: "card" }, h("h2", { text: `${t("standings")} · ${t(res.status)}` }),
    res.standings.length ? standingsEl(res.standings) : h("p", { class: "muted", text: t("waiting") }),
    matchEndEl(res.match_end),
    h("p", { class: "row" }, h("a", { href: `/api/matches/${CODE}/record`, download: `caishen-${CODE}.json`, text: t("download") }),
      res.status !== "over" ? h("a", { href: `/r/${CODE}`, text: t("backToTable") }) : null)));
  const out = h("span", { "data-testid": "verify-result" });
  const local = h("span", { "data-testid": "browser-verify" });
  const keyline = h("p", { class: "small", "data-testid": "centre-key" });
  // each seat's randomness by its wind (the seats turn from hand to hand), a word in the page's language
  const mixed = (f) => (f.contributions || []).map((c, i) => `${windName(i)} ${/^[0-9a-f]{64}$/.test(c) ? c.slice(0, 8) + "…"
    : t("contrib_" + c) === "contrib_" + c ? c : t("contrib_" + c)}`).join(" · ");
  parts.push(h("section", { class: "card", id: "fairness" }, h("h2", { text: t("fairness") }),
    h("p", { "data-testid": "fair-plain", text: t("fairPlain") }),  // what it shows, for one who is not an expert
    h("p", { class: "row" }, local),
    h("p", { class: "muted small", "data-testid": "browser-scope", text: t("browserScope") }),
    keyline,
    h("table", { class: "list" }, h("tr", {}, h("th", { text: "#" }), h("th", { text: t("commitment") }), h("th", { text: t("seed") }),
      h("th", { text: t("contributions") })),
      // (on a phone each hand's row stands as a block, each value under its label: style.css)
      res.fairness.map((f) => h("tr", {}, h("td", { text: f.index + 1 }), h("td", { class: "fair", "data-label": t("commitment"), text: f.commitment }),
        h("td", { class: "fair", "data-label": t("seed"), text: f.seed || "—" }),
        h("td", { class: "fair", "data-label": t("contributions"), text: mixed(f) })))),
    h("p", { class: "row" }, h("button", { type: "button", "data-testid": "verify", text: t("serverOpinion"), onclick: () => runVerify(out) }), out)));
  if (res.hands.length) {  // every hand in a line, before the fairness panel: who won and how, a jump to its score
    parts.splice(1, 0, h("section", { class: "card", "data-testid": "hands-index" }, h("h2", { text: t("handsHead") }),
      h("ul", { class: "handsindex" }, res.hands.map((end) => h("li", {},
        h("a", { href: `#hand-${end.index}`, text: t("hand", end.index + 1) }), " ",
        end.winner === null ? t("drawGame")
          : `${playerName(end.lines[end.winner].name)} · ${end.win_type ? t(end.win_type) : howText(end.how)}`,
        " · ", h("a", { href: `/replay/${CODE}/${end.index}`, text: t("replay") }))))));
  }
  for (const end of res.hands) {
    parts.push(h("section", { class: "card", id: `hand-${end.index}` }, scoreTableEl(end),
      h("p", {}, h("a", { href: `/replay/${CODE}/${end.index}`, "data-testid": `replay-${end.index}`, text: `${t("replay")} ${t("hand", end.index + 1)}` }))));
  }
  if (res.status === "over") parts.splice(1, 0, shareCardEl(res));
  main.replaceChildren(...parts);
  if (res.hands.length) runBrowserCheck(local, keyline);
  profileLinks(res, parts[0]);
}

// The share card (static/sharecard.js): drawn here once the fonts are in, shown, and offered as a
// PNG download (and to the phone's share sheet where the browser has one).
function shareCardEl(res) {
  const box = h("section", { class: "card", id: "sharecard" }, h("h2", { text: t("shareCard") }),
    h("p", { class: "muted", text: t("shareCardDoc") }));
  document.fonts.ready.then(async () => {
    const card = ShareCard.draw(res);
    const blob = await ShareCard.png(card.canvas);
    const url = URL.createObjectURL(blob);
    const file = `caishen-${CODE}.png`;
    const shareable = navigator.canShare && navigator.canShare({ files: [new File([blob], file, { type: "image/png" })] });
    box.append(h("img", { class: "sharecard", src: url, alt: t("shareCard"), "data-testid": "sharecard-img" }),
      h("p", { class: "row" }, h("a", { href: url, download: file, "data-testid": "sharecard-download", text: t("downloadPng") }),
        shareable ? h("button", { type: "button", text: t("share"), onclick: () => navigator.share({
          files: [new File([blob], file, { type: "image/png" })], title: t("cardTitle") }).catch(() => {}) }) : null));
    window.shareCardTexts = card.texts;  // what was drawn where (the browser test reads it)
    box.dataset.ready = "1";
  });
  return box;
}

// Under the standings, each player whose profile the viewer may open (an account's, or his own).
async function profileLinks(res, card) {
  let ids;
  try { ids = await api(`/api/matches/${CODE}/profiles`); } catch (err) { return; }
  const links = res.players.map((name, i) => (ids[i] ? h("a", { href: "/profile/" + ids[i], "data-testid": "profile-link", text: playerName(name) }) : null))
    .filter(Boolean);
  if (links.length) card.append(h("p", { class: "row" }, h("span", { class: "muted", text: t("profiles") }), ...links));
}

setLang(LANG);
document.getElementById("langslot").append(langButton(render));
render();
