// Clubs 亲友圈: the list of my clubs (/clubs: create one, join by code or link) and a club's
// page (/club/CODE: join by the invite; its templates, open tables, members online and
// playing, requests and blacklist for admins, the season's leaderboard, recent matches).
// Every name from the server goes in as text (h() and textContent), never as HTML.
"use strict";

Object.assign(I18N.zh, {
  myClubs: "我的亲友圈", clubs: "亲友圈", joinClub: "凭圈号或链接加入", newClub: "创建亲友圈", clubName: "圈名",
  approval: "加入需管理员同意", noClubs: "还没有加入亲友圈。", clubCode: "圈号", role_owner: "圈主", role_admin: "管理员",
  role_member: "成员", role_pending: "申请中", role_blacklisted: "黑名单", joinThisClub: "加入亲友圈", requestJoin: "申请加入",
  invitedTo: "你被邀请加入亲友圈“{0}”（圈主 {2}，{1} 位成员）。", pendingNote: "已申请加入，等待管理员同意。",
  blacklistedNote: "你不能加入这个亲友圈。", templates: "房规模板（一键开桌）", withBots: "空位全部由机器人补上",
  openTable: "开桌", addTemplate: "在大厅的“创建房间”里设定房规，存为本圈模板", noTemplates: "还没有模板。",
  openTables: "开着的桌子", noTables: "现在没有开着的桌子。", members: "成员", requests: "加入申请", blacklist: "黑名单",
  online: "在线", offline: "离线", playingAt: "正在打", approve: "同意", reject: "拒绝", remove: "移出",
  ban: "拉黑", unban: "解除拉黑", makeAdmin: "设为管理员", makeMember: "取消管理员", makeOwner: "转让圈主",
  confirmMakeOwner: "把亲友圈转让给{0}？转让后你是管理员。", leaderboard: "赛季排行榜",
  seasonDates: "赛季：{0} 至 {1}", seasonMonth: "（自然月）", seasonFrom: "从", seasonTo: "到", calendarMonth: "按自然月",
  recentMatches: "最近对局", leaveClub: "退出亲友圈", confirmLeave: "确定退出这个亲友圈？", confirmBan: "确定拉黑{0}？拉黑后他不能再加入，也不能坐进本圈的桌子（可以解除）。", confirmRemove: "确定把{0}移出亲友圈？",
  matchesCol: "场次", handsCol: "局数", nHands: "{0} 局", winsCol: "胡牌", chipsCol: "筹码", perHand: "每局", template: "模板",
  noBoard: "本赛季还没有打完的局。", deleteTemplate: "删除", confirmDeleteTemplate: "删除模板“{0}”？", err_not_the_owner: "只有圈主可以这样做",
  err_owner_stays: "圈主不能被移出", err_blacklisted: "你不能加入这个亲友圈", err_no_template: "没有这个模板", err_bad_template: "模板的房规不对：{0}",
  err_bad_season: "赛季要有开始和结束日期，结束不早于开始", err_cannot_change: "不能这样改", err_not_in_club: "此人不在圈里",
  err_not_signed_in: "先取一个昵称",
  err_bad_code: "圈号是 4 到 16 位字母或数字（或粘贴邀请链接）", removedNote: "你已不在这个亲友圈里。",
  myRole: "我的身份", roleIs: "我的身份：{0}", undecline: "撤销拒绝", withdraw: "撤回申请", invitedTo1: "你被邀请加入亲友圈“{0}”（圈主 {2}，1 位成员）。", role_declined: "未获同意",
  declinedNote: "管理员没有同意你加入“{0}”的申请，{1} 之后可以再申请。", err_declined: "管理员没有同意你的申请：24 小时后才能再申请",
});
Object.assign(I18N.en, {
  myClubs: "My clubs", clubs: "Clubs", joinClub: "Join by club code or link", newClub: "Create a club", clubName: "Club name",
  approval: "Joining needs an admin's yes", noClubs: "You are in no club yet.", clubCode: "Club code", role_owner: "owner",
  role_admin: "admin", role_member: "member", role_pending: "asked to join", role_blacklisted: "blacklisted",
  joinThisClub: "Join the club", requestJoin: "Ask to join", invitedTo: "You are invited to the club \u201c{0}\u201d, run by {2} ({1} members).",
  pendingNote: "You asked to join: an admin will say yes or no.", blacklistedNote: "You cannot join this club.",
  templates: "Rule templates (one click opens a table)", withBots: "Bots take every empty seat", openTable: "Open a table",
  addTemplate: "Set the house rules in the lobby's \u201cCreate a room\u201d and save them as this club's template",
  noTemplates: "No template yet.", openTables: "Open tables", noTables: "No open table now.", members: "Members",
  requests: "Asking to join", blacklist: "Blacklist", online: "online", offline: "offline", playingAt: "playing",
  approve: "Approve", reject: "Reject", remove: "Remove", ban: "Blacklist", unban: "Lift", makeAdmin: "Make admin",
  makeMember: "Make member", makeOwner: "Hand the club over",
  confirmMakeOwner: "Hand the club to {0}? You will be an admin.", leaderboard: "Season leaderboard", seasonDates: "Season: {0} to {1}", seasonMonth: " (calendar month)",
  seasonFrom: "From", seasonTo: "to", calendarMonth: "Calendar month", recentMatches: "Recent matches", leaveClub: "Leave the club",
  confirmLeave: "Leave this club?", confirmBan: "Blacklist {0}? They cannot join again, nor sit at this club's tables (until you lift it).", confirmRemove: "Remove {0} from the club?", matchesCol: "Matches", handsCol: "Hands", winsCol: "Wins",
  chipsCol: "Chips", perHand: "per hand", nHands: "{0} hands", template: "Template", noBoard: "No hand finished this season yet.",
  deleteTemplate: "Delete", confirmDeleteTemplate: "Delete the template \u201c{0}\u201d?",
  err_not_the_owner: "Only the club's owner may do this", err_owner_stays: "The owner cannot be removed",
  err_blacklisted: "You cannot join this club",
  err_no_template: "No such template", err_bad_template: "The template's rules are wrong: {0}",
  err_bad_season: "A season needs a first and a last day, the last not before the first", err_cannot_change: "This cannot be changed so",
  err_not_in_club: "This person is not in the club", err_not_signed_in: "Pick a name first",
  err_bad_code: "A club code is 4 to 16 letters or digits (or paste the invite link)", removedNote: "You are no longer in this club.",
  myRole: "My role", roleIs: "My role: {0}", undecline: "Take the no back", withdraw: "Withdraw the request", invitedTo1: "You are invited to the club \u201c{0}\u201d, run by {2} (1 member).", role_declined: "declined",
  declinedNote: "An admin declined your request to join \u201c{0}\u201d. You may ask again from {1}.",
  err_declined: "An admin declined your request: you may ask again a day after it",
});

// A request (common.js's api(): a refusal's message is in the page's language).
const call = (path, method = "GET", body = undefined) => api(path, { method, body });

const $ = (id) => document.getElementById(id);
// The page's one message line, at its foot: brought into view (on a phone it was drawn below
// the screen, and an action seemed to do nothing).
const showErr = (ex) => {
  tell($("err"), ex);
  if (ex) $("err").scrollIntoView({ block: "nearest" });
};
const list = (items) => items.join(LANG === "zh" ? "、" : ", ");

// ---------------------------------------------------------------- /clubs

async function loadMyClubs() {
  const me = await call("/api/me");
  $("namecard").hidden = !!me.name;
  const mine = await call("/api/clubs");
  const box = $("clublist");
  if (!mine.length) { box.replaceChildren(h("p", { class: "muted", text: t("noClubs") })); return; }
  box.replaceChildren(h("table", { class: "list" },
    h("tr", {}, h("th", { text: t("clubName") }), h("th", { text: t("clubCode") }), h("th", { text: t("myRole") }),
      h("th", { class: "num", text: t("members") })),
    mine.map((c) => h("tr", {},
      h("td", { class: "wide" }, h("a", { href: "/club/" + c.code, text: c.name })), h("td", { class: "nowrap", text: c.code }),
      h("td", { class: "nowrap", text: t("role_" + c.role) }), h("td", { class: "num", text: String(c.members) })))));
}

function clubsPage() {
  $("nameform").addEventListener("submit", async (e) => {
    e.preventDefault();
    try { await call("/api/me", "POST", { name: $("name").value }); showErr(null); await loadMyClubs(); } catch (ex) { showErr(ex); }
  });
  $("newclubform").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const club = await call("/api/clubs", "POST", { name: $("clubname").value, approval: $("clubapproval").checked });
      location.href = "/club/" + club.code;
    } catch (ex) { showErr(ex); }
  });
  $("joinclubform").addEventListener("submit", (e) => {
    e.preventDefault();
    const raw = $("joinclubcode").value.trim();
    const code = (raw.includes("/club/") ? raw.split("/club/")[1].split(/[?#/]/)[0] : raw).toUpperCase();
    // not a code at all (a name, a cut link): said here, not on a page the server cannot find
    if (!/^[A-Z0-9]{4,16}$/.test(code)) { showErr(new Error(t("err_bad_code"))); return; }
    location.href = "/club/" + encodeURIComponent(code);
  });
  $("langslot").append(langButton(loadMyClubs));
  return loadMyClubs();
}

// ---------------------------------------------------------------- /club/CODE

const CODE = decodeURIComponent(location.pathname.split("/")[2] || "").toUpperCase();  // codes are capitals
let VIEW = null;
let ME = null;

// A button for an action on a person; the club's page as it is afterwards.
function personAction(label, path, confirmText = null, body = undefined) {
  return h("button", { type: "button", text: label, onclick: async () => {
    if (confirmText && !confirm(confirmText)) return;
    try { VIEW = await call(path, "POST", body); showErr(null); renderView(); } catch (ex) {
      // refused (another admin acted first, say): the lists as they are now, and why
      try { VIEW = await call(`/api/clubs/${CODE}/view`); renderView(); } catch (_) { /* the refusal says enough */ }
      showErr(ex);
    }
  } });
}

function renderView() {
  const v = VIEW;
  const admin = v.club.role === "owner" || v.club.role === "admin";
  const owner = v.club.role === "owner";
  const base = `/api/clubs/${CODE}`;
  // templates: one click opens a table
  $("templates").replaceChildren(v.templates.length ? h("table", { class: "list" }, v.templates.map((tp) => h("tr", {},
    h("td", { text: tp.name }),
    h("td", { class: "muted", text: `${t("variant_" + tp.options.variant)} · ${tp.options.hands ? t("nHands", tp.options.hands) : t("toBreak")} · ${t("friends")} ${tp.options.friends}` }),
    h("td", { class: "nowrap" }, h("button", { type: "button", class: "primary", text: t("openTable"), "data-testid": "open-table", onclick: async () => {
      try {
        const room = await call(`${base}/tables`, "POST", { template: tp.name, friends: $("withbots").checked ? 0 : null });
        location.href = "/r/" + room.code;
      } catch (ex) { showErr(ex); }
    } }), admin ? h("button", { type: "button", style: "margin-left:.4rem", text: t("deleteTemplate"), onclick: async () => {
      if (!confirm(t("confirmDeleteTemplate", tp.name))) return;
      try {
        await call(`${base}/templates/${encodeURIComponent(tp.name)}`, "DELETE");
        VIEW = await call(`${base}/view`); renderView();
      } catch (ex) { showErr(ex); }
    } }) : null)))) : h("p", { class: "muted", text: t("noTemplates") }));
  $("templatehint").hidden = !admin;
  $("templatelink").href = "/?club=" + encodeURIComponent(CODE) + "#roomform";
  // open tables
  $("tables").replaceChildren(v.tables.length ? h("table", { class: "list" }, v.tables.map((tb) => h("tr", {},
    h("td", { text: tb.template || t("variant_" + tb.variant) }), h("td", { class: "nowrap", text: t(tb.status) }),
    h("td", { text: list(tb.players.map((n) => (n === null ? t("seatOpen") : (botLevel(n) ? botName(n) : n)))) }),
    h("td", { class: "links" }, h("a", { href: "/r/" + tb.code, text: t(tb.players.includes(null) ? "joinTable" : "open") }))))) :
    h("p", { class: "muted", text: t("noTables") }));
  // members: online, playing; actions by role
  // one person a line; the buttons wrap under the name on a phone
  // online and playing for members only: a request or a blacklisted person never had the page
  // (what the server knows of them is from before)
  const row = (m, actions, presence = true) => h("div", { class: "member row", "data-member": m.id },
    h("span", { class: "who", text: m.name }), h("span", { class: "nowrap muted", text: t("role_" + m.role) }),
    presence ? h("span", { class: "nowrap" }, h("span", { class: m.online ? "online" : "muted", text: m.online ? "● " + t("online") : "○ " + t("offline") }),
      m.playing ? [" · ", h("a", { href: "/r/" + m.playing, text: t("playingAt") })] : null) : null,
    h("span", { class: "row" }, actions));
  const me = ME && ME.id;
  $("members").replaceChildren(...v.members.map((m) => row(m, [
    owner && m.role === "member" ? personAction(t("makeAdmin"), `${base}/members/${m.id}/role`, null, { role: "admin" }) : null,
    owner && m.role === "admin" ? personAction(t("makeMember"), `${base}/members/${m.id}/role`, null, { role: "member" }) : null,
    owner && m.role === "admin" ? personAction(t("makeOwner"), `${base}/members/${m.id}/owner`, t("confirmMakeOwner", m.name)) : null,
    admin && m.id !== me && m.role !== "owner" && (owner || m.role === "member") ? personAction(t("remove"), `${base}/members/${m.id}/remove`, t("confirmRemove", m.name)) : null,
    admin && m.id !== me && m.role !== "owner" && (owner || m.role === "member") ? personAction(t("ban"), `${base}/members/${m.id}/blacklist`, t("confirmBan", m.name)) : null,
  ])));
  // the requests, then those declined in the last day (a no given on the wrong line can be taken back)
  const declined = v.declined || [];
  $("requestsbox").hidden = !v.requests.length && !declined.length;
  $("requests").replaceChildren(...v.requests.map((m) => row(m, [
    personAction(t("approve"), `${base}/requests/${m.id}/approve`), personAction(t("reject"), `${base}/requests/${m.id}/reject`)], false)),
  ...declined.map((m) => row(m, [personAction(t("undecline"), `${base}/requests/${m.id}/undecline`)], false)));
  $("blacklistbox").hidden = !v.blacklist.length;
  $("blacklist").replaceChildren(...v.blacklist.map((m) => row(m, [
    personAction(t("unban"), `${base}/members/${m.id}/unblacklist`)], false)));
  // recent matches
  $("matches").replaceChildren(v.matches.length ? h("table", { class: "list" }, v.matches.map((m) => h("tr", {},
    // each player with the chips they ended with (a bare "25/0/160/195" named nobody), and the
    // template's cell wide enough to read on a phone (it was squeezed to a character a line)
    h("td", { class: "nowrap", text: localStamp(m.created) }), h("td", { class: "wide", text: m.template || "" }),
    h("td", { text: list(m.players.map((n, i) => `${botLevel(n) ? botName(n) : n} ${m.chips[i] ?? ""}`.trim())) }),
    h("td", { class: "links" }, h("a", { href: "/m/" + m.code, text: t("result") }))))) : h("p", { class: "muted", text: t("noMatches") }));
  // season and the owner's settings
  $("season").textContent = t("seasonDates", v.season_start, v.season_end) + (v.season_set ? "" : t("seasonMonth"));
  $("seasonform").hidden = !owner;
  $("approvalrow").hidden = !owner;
  $("approvalbox").checked = v.club.approval;
  if (owner && document.activeElement.tagName !== "INPUT") {
    $("seasonstart").value = v.season_start;
    $("seasonend").value = v.season_end;
  }
  $("leavecard").hidden = owner;
  $("myrole").textContent = roleLine(v.club.role);
  $("clubtitle").textContent = v.club.name;
}

async function loadBoard() {
  const b = await call(`/api/clubs/${CODE}/leaderboard`);
  // (on a phone each row is a block: rank, name and chips on one line, the rest under it,
  // each under its label: style.css "table.board")
  const num = (x, label) => h("td", { class: "num", "data-label": label || null, text: String(x) });
  $("board").replaceChildren(b.rows.length ? h("table", { class: "list board", "data-testid": "board-table" },
    h("tr", {}, h("th", {}), h("th", { text: t("players") }), h("th", { class: "num", text: t("matchesCol") }),
      h("th", { class: "num", text: t("handsCol") }), h("th", { class: "num", text: t("winsCol") }),
      h("th", { class: "num", text: `${t("winsCol")} ${t("perHand")}` }), h("th", { class: "num", text: t("chipsCol") }),
      h("th", { class: "num", text: `${t("chipsCol")} ${t("perHand")}` })),
    b.rows.map((r, i) => h("tr", {}, num(i + 1), h("td", { text: r.name }), num(r.matches, t("matchesCol")), num(r.hands, t("handsCol")),
      num(r.wins, t("winsCol")), num(r.wins_per_hand.toFixed(2), `${t("winsCol")} ${t("perHand")}`), num(r.chips, t("chipsCol")),
      num(r.chips_per_hand.toFixed(2), `${t("chipsCol")} ${t("perHand")}`))))
    : h("p", { class: "muted", text: t("noBoard") }));
}

// my role beside the code, under its label ("My role: admin"); nothing while I have none
function roleLine(role) {
  return role ? t("roleIs", t("role_" + role)) : "";
}

async function loadClub() {
  ME = await call("/api/me");
  let club;
  try { club = await call(`/api/clubs/${encodeURIComponent(CODE)}`); } catch (ex) { showErr(ex); $("invitecard").hidden = true; return; }
  $("clubtitle").textContent = club.name;
  $("clubcode").textContent = club.code;
  $("clublink").value = club.link;
  $("myrole").textContent = roleLine(club.role);
  const member = club.role === "owner" || club.role === "admin" || club.role === "member";
  $("joincard").hidden = member;
  $("memberonly").hidden = !member;
  if (!member) {
    // a member removed while the page was open: said, instead of the last refusal left in red
    showErr(VIEW ? new Error(t("removedNote")) : null);
    VIEW = null;
    // declined: when they may ask again, and no button before then (it could only be refused)
    const waiting = club.role === "declined" && club.ask_again_at && serverDate(club.ask_again_at) > new Date();
    $("joinnote").textContent = club.role === "pending" ? t("pendingNote")
      : club.role === "declined" ? t("declinedNote", club.name, localStamp(club.ask_again_at || ""))
      : club.role === "blacklisted" ? t("blacklistedNote") : t(club.members === 1 ? "invitedTo1" : "invitedTo", club.name, club.members, club.owner);
    $("withdraw").hidden = club.role !== "pending";
    $("joinbutton").textContent = t(club.approval ? "requestJoin" : "joinThisClub");
    $("joinbutton").hidden = club.role === "pending" || club.role === "blacklisted" || waiting;
    $("name").hidden = !!ME.name;
    $("name").placeholder = t("name");
    $("name").required = !ME.name;
    return;
  }
  VIEW = await call(`/api/clubs/${CODE}/view`);
  renderView();
  await loadBoard();
}

function clubPage() {
  $("copylink").addEventListener("click", () => {
    navigator.clipboard.writeText($("clublink").value).then(() => { $("copylink").textContent = t("copied"); }, () => {});
  });
  $("joinform").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      if (!ME.name) await call("/api/me", "POST", { name: $("name").value });
      await call(`/api/clubs/${CODE}/join`, "POST");
      showErr(null);
      await loadClub();
    } catch (ex) { showErr(ex); }
  });
  $("seasonform").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const start = $("seasonstart").value || null, end = $("seasonend").value || null;
      // the calendar month's dates stand in the boxes: saving them unchanged must not fix the
      // season to them (it would not move on to the next month)
      if (!VIEW.season_set && start === VIEW.season_start && end === VIEW.season_end) return;
      VIEW = await call(`/api/clubs/${CODE}/settings`, "POST", { season_start: start, season_end: end });
      showErr(null); renderView(); await loadBoard();
    } catch (ex) { showErr(ex); }
  });
  // the approval switch saves itself, beside the members it is about (it sat in the
  // leaderboard's card, saved with the season's dates)
  $("approvalbox").addEventListener("change", async () => {
    try {
      VIEW = await call(`/api/clubs/${CODE}/settings`, "POST", { approval: $("approvalbox").checked });
      showErr(null); renderView();
    } catch (ex) { showErr(ex); renderView(); }
  });
  $("withdraw").addEventListener("click", async () => {
    try { await call(`/api/clubs/${CODE}/leave`, "POST"); showErr(null); await loadClub(); } catch (ex) { showErr(ex); }
  });
  $("calendarmonth").addEventListener("click", async () => {
    try { VIEW = await call(`/api/clubs/${CODE}/settings`, "POST", { calendar_month: true }); renderView(); await loadBoard(); } catch (ex) { showErr(ex); }
  });
  $("leave").addEventListener("click", async () => {
    if (!confirm(t("confirmLeave"))) return;
    try { await call(`/api/clubs/${CODE}/leave`, "POST"); location.href = "/clubs"; } catch (ex) { showErr(ex); }
  });
  $("langslot").append(langButton(() => loadClub().catch(showErr)));
  // every 30 s: who is online and playing, the tables (and this page counts as online)
  setInterval(() => { if (!document.hidden) loadClub().catch(showErr); }, 30000);
  return loadClub();
}

async function main() {
  setLang(LANG);
  try {
    await (document.body.dataset.page === "clubs" ? clubsPage() : clubPage());
  } catch (ex) { showErr(ex); }
  document.body.dataset.ready = "1";
}

document.addEventListener("submit", (e) => { if (!document.body.dataset.ready) e.preventDefault(); }, true);
main();
