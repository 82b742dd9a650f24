// A person's profile (/profile/ID, /profile/me): matches, hands, win rate, chips per hand, the
// favourite variant; on your own, the people you last played with, each to invite again (a new
// room like your last match together, with a seat for a friend: its table page shows the link
// to send). Names go in as text.
"use strict";

Object.assign(I18N.zh, {
  profile: "个人资料", matchesCount: "对局", finishedOf: "打完 {0}", handsCount: "局数", winsCount: "胡牌",
  winRate: "胡牌率", chipsPerHand: "每局平均筹码", favouriteVariant: "最常玩", byVariant: "各玩法",
  accountPill: "账户", guestPill: "游客", youPill: "你", deletedPlayer: "已删除玩家",
  deletedNote: "这个账户已删除；对局仍保留，名字显示为“已删除玩家”。",
  guestNote: "游客的资料只有你自己看得到。注册账户后，资料对有链接的人公开。", toAccount: "注册账户",
  noProfile: "没有这个资料（游客的资料只对本人显示）。", noHands: "还没有打完的局。",
  recentPlayers: "最近的牌友", recentDoc: "邀请：按你们上一场的规则新开一个房间，留一个好友座位；在牌桌页复制链接发给对方。",
  noRecent: "还没有和别人打过。", lastTogether: "上次一起：{0}", invite: "再约一局", notSignedIn: "先在大厅取一个昵称，或登录你的账户。", logInHere: "登录",
});
Object.assign(I18N.en, {
  profile: "Profile", matchesCount: "Matches", finishedOf: "{0} finished", handsCount: "Hands", winsCount: "Wins",
  winRate: "Win rate", chipsPerHand: "Chips per hand", favouriteVariant: "Favourite", byVariant: "By variant",
  accountPill: "account", guestPill: "guest", youPill: "you", deletedPlayer: "deleted player",
  deletedNote: "This account was deleted; its matches stay, under \u201cdeleted player\u201d.",
  guestNote: "A guest's profile is seen by the guest only. Claim an account to make it public to anyone with the link.", toAccount: "Claim an account",
  noProfile: "No such profile (a guest's profile is shown to the guest only).", noHands: "No finished hand yet.",
  recentPlayers: "Recent players", recentDoc: "Invite: a new room with the rules of your last match together and a seat for a friend; copy its link on the table page and send it.",
  noRecent: "You have not played with anyone yet.", lastTogether: "Last match: {0}", invite: "Invite again", notSignedIn: "Pick a name in the lobby first, or log in to your account.", logInHere: "Log in",
});

const PID = decodeURIComponent(location.pathname.split("/").pop() || "me");

const pct = (x) => (x === null ? "—" : `${(100 * x).toFixed(1)}%`);
const perHand = (x) => (x === null ? "—" : (x > 0 ? "+" : "") + x.toFixed(1));

function statEl(key, value, testid, note) {
  return h("div", { class: "stat" }, h("b", { "data-testid": testid, text: value }), h("span", { text: note ? `${t(key)} · ${note}` : t(key) }));
}

function statsEl(st) {
  const fav = st.favourite_variant ? t("variant_" + st.favourite_variant) : "—";
  const parts = [h("div", { class: "stats" },
    statEl("matchesCount", st.matches, "stat-matches", t("finishedOf", st.finished)),
    statEl("handsCount", st.hands, "stat-hands"), statEl("winsCount", st.wins, "stat-wins"),
    statEl("winRate", pct(st.win_rate), "stat-winrate"), statEl("chipsPerHand", perHand(st.chips_per_hand), "stat-chips"),
    statEl("favouriteVariant", fav, "stat-favourite"))];
  parts[0].lastChild.classList.add("small");
  if (!st.hands) parts.push(h("p", { class: "muted", text: t("noHands") }));
  if (st.variants.length) {
    parts.push(h("h2", { text: t("byVariant"), style: "margin-top:.8rem" }), h("table", { class: "list wrap", "data-testid": "by-variant" },
      h("tr", {}, h("th", { text: t("variant") }), h("th", { class: "num", text: t("matchesCount") }),
        h("th", { class: "num", text: t("handsCount") }), h("th", { class: "num", text: t("winRate") }),
        h("th", { class: "num", text: t("chipsPerHand") })),
      st.variants.map((v) => h("tr", {}, h("td", { class: "words", text: t("variant_" + v.variant) }), h("td", { class: "num", text: v.matches }),
        h("td", { class: "num", text: v.hands }), h("td", { class: "num", text: pct(v.hands ? v.wins / v.hands : null) }),
        h("td", { class: "num", text: perHand(v.hands ? v.chips / v.hands : null) })))));
  }
  return parts;
}

// A new room like the last match with this person (variant, hands, house rules, timer, pace),
// with one seat for a friend; its table page shows the link to send.
async function invite(p, err) {
  err.textContent = "";
  try {
    const last = await api(`/api/rooms/${p.last_match}`);
    const bot = (last.seats.find((s) => s.bot) || {}).bot || "greedy";
    const room = await api("/api/rooms", { method: "POST", body: {
      variant: last.variant, hands: last.hands, friends: 1, bot, turn_seconds: last.turn_seconds,
      help_allowed: last.help_allowed, pace: last.pace, switches: Object.fromEntries(last.rules.map((r) => [r.name, r.value])),
    } });
    location.href = "/r/" + room.code;
  } catch (ex) { tell(err, ex); }
}

async function recentEl() {
  const list = await api("/api/my/recent-players");
  const err = h("div", { class: "err", "data-testid": "invite-error" });
  const box = h("section", { class: "card", id: "recent" }, h("h2", { text: t("recentPlayers") }),
    h("p", { class: "muted", text: t("recentDoc") }));
  if (!list.length) box.append(h("p", { class: "muted", "data-testid": "no-recent", text: t("noRecent") }));
  else {
    box.append(h("ul", { class: "recent", "data-testid": "recent-players" }, list.map((p) => h("li", { "data-testid": "recent-player" },
      p.profile ? h("a", { class: "who", href: "/profile/" + p.profile, text: p.name }) : h("span", { class: "who", text: p.name }),
      h("a", { class: "muted", href: "/m/" + p.last_match, text: t("lastTogether", `${t("variant_" + p.variant)} · ${localStamp(p.when)}`) }),
      h("button", { type: "button", "data-testid": "invite", text: t("invite"), onclick: () => invite(p, err) })))));
  }
  box.append(err);
  return box;
}

async function render() {
  const main = document.getElementById("main");
  let prof;
  try {
    prof = await api(`/api/players/${encodeURIComponent(PID)}/profile`);
  } catch (err) {
    // (where to go next: the lobby to pick a name, the account page to log in)
    main.replaceChildren(h("section", { class: "card" }, h("p", { "data-testid": "no-profile", text: PID === "me" ? t("notSignedIn") : t("noProfile") }),
      PID === "me" ? h("p", { class: "row" }, h("a", { href: "/", text: t("backToLobby") }), h("a", { href: "/account", "data-testid": "to-login", text: t("logInHere") })) : null));
    document.body.dataset.ready = "1";
    return;
  }
  const pills = [prof.deleted ? null : h("span", { class: "pill", text: t(prof.account ? "accountPill" : "guestPill") }),
    prof.mine ? h("span", { class: "pill", text: t("youPill") }) : null];
  const head = h("section", { class: "card" },
    h("h2", {}, h("span", { "data-testid": "profile-name", text: prof.deleted ? t("deletedPlayer") : prof.name }), ...pills));
  const parts = [head];
  if (prof.deleted) head.append(h("p", { class: "muted", "data-testid": "deleted", text: t("deletedNote") }));
  else {
    if (prof.mine && !prof.account) {
      head.append(h("p", { class: "muted" }, t("guestNote"), " ", h("a", { href: "/account", text: t("toAccount") })));
    }
    head.append(...statsEl(prof.stats));
    if (prof.mine) parts.push(await recentEl());
  }
  main.replaceChildren(...parts);
  document.body.dataset.ready = "1";
}

setLang(LANG);
document.getElementById("langslot").append(langButton(render));
render();
