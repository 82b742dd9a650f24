// The account page: claim an account (a guest keeps the matches), log in and out, the
// sessions (each can be ended), change the password, delete the account. Names go in as text.
"use strict";

Object.assign(I18N.zh, {
  claimTitle: "注册账户", claimDoc: "为当前昵称设置登录名和密码：对局记录保留，可在其他设备登录。",
  loginName: "登录名", password: "密码", claimPassword: "密码（至少 8 个字符）", claim: "注册", logIn: "登录", logOut: "退出登录",
  sessions: "登录设备", signedInAt: "登录时间", lastUsed: "最近使用", thisOne: "本设备", end: "结束",
  changePassword: "修改密码", changePasswordDoc: "需要旧密码；修改后其他设备都会退出登录。",
  oldPassword: "旧密码", newPassword: "新密码（至少 8 个字符）", change: "修改",
  deleteAccount: "删除账户", deleteDoc: "登录名和密码会被删除；对局仍保留，你的名字显示为“已删除玩家”。",
  confirmDelete: "确定删除账户？此操作无法撤销。",
  accountDeleted: "账户已删除：登录名和密码已不存在，每台设备都已退出。对局仍保留，名字显示为“已删除玩家”。",
  whoAccount: "已登录：{0}（登录名 {1}）", whoGuest: "游客：{0}", whoNobody: "未登录",
  noteGuest: "游客的对局只保存在这个浏览器里；注册账户后可在其他设备登录。",
  noteNobody: "登录已有账户，或注册一个新账户（无需先取昵称）。",
  loginLeavesGuest: "在这里登录会离开当前游客身份（{0}）。",
  passwordChanged: "密码已修改；其他 {0} 个设备已退出。", passwordChanged0: "密码已修改。", passwordChanged1: "密码已修改；其他 1 个设备已退出。",
  err_bad_login: "登录名或密码错误", err_bad_password: "密码错误", err_too_many_attempts: "尝试次数过多，请 {0} 秒后再试",
  err_login_taken: "这个登录名已被使用", err_bad_login_name: "登录名为 3–32 个字母、数字或 _ . -",
  err_weak_password: "密码至少 8 个字符，且不能全是空格", err_already_account: "你已经有账户了", err_not_signed_in: "尚未登录",
  err_no_session: "没有这个登录设备", err_no_account: "你还没有账户",
});
Object.assign(I18N.en, {
  claimTitle: "Claim an account", claimDoc: "Give this name a login and a password: your matches stay yours, and you can log in on other devices.",
  loginName: "Login name", password: "Password", claimPassword: "Password (8 characters or more)", claim: "Claim account", logIn: "Log in", logOut: "Log out",
  sessions: "Signed-in devices", signedInAt: "Signed in", lastUsed: "Last used", thisOne: "this device", end: "End",
  changePassword: "Change password", changePasswordDoc: "The old password is needed; every other device is then signed out.",
  oldPassword: "Old password", newPassword: "New password (8 characters or more)", change: "Change",
  deleteAccount: "Delete account", deleteDoc: "Your login and password are deleted; your matches stay, under \u201cdeleted player\u201d.",
  confirmDelete: "Delete your account? This cannot be undone.",
  accountDeleted: "Your account is deleted: its login and password are gone, and every device is signed out. Your matches stay, under \u201cdeleted player\u201d.",
  whoAccount: "Signed in as {0} (login {1})", whoGuest: "Guest: {0}", whoNobody: "Not signed in",
  noteGuest: "A guest's matches live in this browser only; claim an account to log in on other devices.",
  noteNobody: "Log in to your account, or claim a new one (no name needed first).",
  loginLeavesGuest: "Logging in here leaves this guest ({0}).",
  passwordChanged: "Password changed; {0} other devices signed out.", passwordChanged0: "Password changed.",
  passwordChanged1: "Password changed; 1 other device signed out.",
  err_bad_login: "Wrong login name or password", err_bad_password: "Wrong password", err_too_many_attempts: "Too many attempts: try again in {0} s",
  err_login_taken: "This login name is taken", err_bad_login_name: "A login name is 3-32 letters, digits, _ . or -",
  err_weak_password: "A password has 8 characters or more, not only spaces", err_already_account: "You already have an account", err_not_signed_in: "Not signed in",
  err_no_session: "No such session", err_no_account: "You have no account",
});

let ACCOUNT = null;

// A request (common.js's api(): a refusal's message is in the page's language, {0} the wait a
// 429 names).
const call = (path, method, body) => api(path, { method, body });

async function loadSessions() {
  const list = await call("/api/account/sessions", "GET");
  document.getElementById("sessions").replaceChildren(h("table", { class: "list", "data-testid": "sessions" },
    h("tr", {}, h("th", { text: t("signedInAt") }), h("th", { text: t("lastUsed") }), h("th", {})),
    list.map((s) => h("tr", { "data-current": s.current ? "1" : null },
      h("td", { class: "nowrap", text: localStamp(s.created) }), h("td", { class: "nowrap", text: localStamp(s.last_used) }),
      // ("this device" above its button: side by side they ran past a phone's edge)
      h("td", {}, s.current ? h("strong", { style: "display:block", text: t("thisOne") }) : null,
        h("button", { type: "button", "data-testid": "end-session", onclick: () => endSession(s) }, t("end")))))));
}

async function endSession(s) {
  try {
    await call("/api/account/sessions/" + s.id, "DELETE");
    await load();
  } catch (err) { tell(document.getElementById("sessionserr"), err); }
}

async function load() {
  ACCOUNT = await call("/api/account", "GET");
  const who = document.getElementById("who");
  const isAccount = !!ACCOUNT.login;
  if (isAccount) who.textContent = t("whoAccount", ACCOUNT.name, ACCOUNT.login);
  else if (ACCOUNT.name) who.textContent = t("whoGuest", ACCOUNT.name);
  else who.textContent = t("whoNobody");
  document.getElementById("whonote").textContent = isAccount ? "" : t(DELETED ? "accountDeleted" : ACCOUNT.name ? "noteGuest" : "noteNobody");
  document.getElementById("loginnote").textContent = ACCOUNT.name && !isAccount ? t("loginLeavesGuest", ACCOUNT.name) : "";
  document.getElementById("claimnamerow").hidden = !!ACCOUNT.id;
  for (const id of ["claimcard", "logincard"]) document.getElementById(id).hidden = isAccount;
  for (const id of ["sessionscard", "passwordcard", "deletecard"]) document.getElementById(id).hidden = !isAccount;
  document.body.dataset.account = isAccount ? "1" : (ACCOUNT.id ? "guest" : "none");
  if (isAccount) await loadSessions();
}

// Send a form: `run` does the request; its error goes under the form; then the page reloads its data.
function onSubmit(formId, errId, run) {
  // a refusal goes once the person changes what it was about (it stood while they fixed it)
  document.getElementById(formId).addEventListener("input", () => { document.getElementById(errId).textContent = ""; });
  document.getElementById(formId).addEventListener("submit", async (e) => {
    e.preventDefault();
    const err = document.getElementById(errId);
    err.textContent = "";
    try {
      const note = await run();
      e.target.reset();
      await load();
      if (note) err.textContent = note;
    } catch (ex) { tell(err, ex); }
  });
}

const val = (id) => document.getElementById(id).value;
let DELETED = false;  // this page deleted the account: its note says so

async function main() {
  setLang(LANG);
  document.getElementById("langslot").append(langButton(load));
  onSubmit("claimform", "claimerr", () => call("/api/account", "POST",
    { login: val("claimlogin"), password: val("claimpassword"), name: val("claimname") || null }).then(() => ""));
  onSubmit("loginform", "loginerr", () => call("/api/login", "POST",
    { login: val("loginlogin"), password: val("loginpassword") }).then(() => ""));
  onSubmit("passwordform", "passworderr", () => call("/api/account/password", "POST",
    { old: val("oldpassword"), new: val("newpassword") })
    .then((r) => (r.sessions === 0 ? t("passwordChanged0") : r.sessions === 1 ? t("passwordChanged1") : t("passwordChanged", r.sessions))));
  document.getElementById("deleteform").addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!confirm(t("confirmDelete"))) return;
    try {
      await call("/api/account/delete", "POST", { password: val("deletepassword") });
      DELETED = true;  // said here, in the page's language, until the page is left
      e.target.reset();
      await load();
    } catch (ex) { tell(document.getElementById("deleteerr"), ex); }
  });
  document.getElementById("logout").addEventListener("click", async () => {
    try {
      await call("/api/logout", "POST");
      await load();
    } catch (ex) { tell(document.getElementById("sessionserr"), ex); }
  });
  await load();
  document.body.dataset.ready = "1";
}

document.addEventListener("submit", (e) => { if (!document.body.dataset.ready) e.preventDefault(); }, true);
main();
