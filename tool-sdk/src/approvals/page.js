// The approval page's one script: it keeps the list current (runs that paused since the page
// loaded appear, runs decided elsewhere go) without touching a form being filled in, and it
// disables a form's button once submitted.
"use strict";

// The "decided" view: its list kept current, so that a run being resumed shows as running, then
// what came of it, without a reload.
(function () {
  const decided = document.getElementById("decided");
  if (!decided) {
    return;
  }
  let shown = null;
  async function refresh() {
    try {
      const response = await fetch("decided?part=list&page=" + encodeURIComponent(decided.dataset.page),
        { credentials: "same-origin", cache: "no-store" });
      if (!response.ok) {
        return;
      }
      const html = await response.text();
      if (html !== shown) {
        decided.innerHTML = html; // escaped by the server
        shown = html;
      }
    } catch (_) {
      // The server is away for a moment; try again at the next beat.
    }
  }
  setInterval(refresh, 2000);
})();

(function () {
  const POLL_MS = 2000;
  const list = document.getElementById("runs");
  const news = document.getElementById("news");
  if (!list) {
    return; // an outcome or a message: nothing to keep current
  }

  function busy(section) {
    return section.contains(document.activeElement) || section.dataset.busy === "yes" ||
      Array.from(section.querySelectorAll("input[type=radio]")).some((r) => r.checked) ||
      Array.from(section.querySelectorAll("textarea")).some((t) => t.value !== t.defaultValue);
  }

  function shown() {
    const sections = new Map();
    for (const section of list.querySelectorAll("section.run")) {
      sections.set(section.dataset.run, section);
    }
    return sections;
  }

  // "3 min ago", as the server words it, kept current: each <time> holds its instant.
  function ago(seconds) {
    if (seconds < 60) {
      return "just now";
    }
    if (seconds < 3600) {
      return Math.floor(seconds / 60) + " min ago";
    }
    if (seconds < 86400) {
      return Math.floor(seconds / 3600) + " h ago";
    }
    const days = Math.floor(seconds / 86400);
    return days === 1 ? "1 day ago" : days + " days ago";
  }

  // "4 min left", as the server words it, counted down to a deadline.
  function left(seconds) {
    if (seconds <= 0) {
      return "none left";
    }
    if (seconds < 60) {
      return "under a minute left";
    }
    if (seconds < 3600) {
      return Math.floor(seconds / 60) + " min left";
    }
    if (seconds < 86400) {
      return Math.floor(seconds / 3600) + " h left";
    }
    const days = Math.floor(seconds / 86400);
    return days === 1 ? "1 day left" : days + " days left";
  }

  function retime() {
    for (const time of list.querySelectorAll("time[data-at]")) {
      const at = Number(time.dataset.at);
      if (Number.isFinite(at)) {
        time.textContent = ago(Math.max(0, Math.floor((Date.now() - at) / 1000)));
      }
    }
    for (const time of list.querySelectorAll("time[data-until]")) {
      const until = Number(time.dataset.until);
      if (Number.isFinite(until)) {
        time.textContent = left(Math.floor((until - Date.now()) / 1000));
      }
    }
  }

  async function refresh() {
    retime();
    let answer;
    try {
      const response = await fetch("runs", { credentials: "same-origin", cache: "no-store" });
      if (!response.ok) {
        return;
      }
      answer = await response.json();
    } catch (_) {
      return; // the server is away for a moment; try again at the next beat
    }
    const current = shown();
    const waiting = new Set(answer.runs.map((run) => run.id));
    let added = 0;
    // A run decided elsewhere that paused again waits at a new pause: its old form would be
    // refused, so it is replaced, unless someone is filling it in, who is told.
    const pauses = new Map(answer.runs.map((run) => [run.id, run.pause]));
    for (const run of answer.runs) {
      const section = current.get(run.id);
      if (section && section.dataset.pause !== run.pause && !busy(section)) {
        section.remove();
        current.delete(run.id);
      }
    }
    // The sections of the runs this page lacks, each fetched alone: the poll itself carries
    // ids and pauses only.
    const fetched = new Map();
    await Promise.all(answer.runs.filter((run) => !current.has(run.id)).map(async (run) => {
      try {
        const response = await fetch("run?id=" + encodeURIComponent(run.id),
          { credentials: "same-origin", cache: "no-store" });
        if (response.ok) {
          const section = await response.json();
          if (section.pause === run.pause) {
            fetched.set(run.id, section.html);
          }
        }
      } catch (_) {
        // Fetched at the next beat.
      }
    }));
    // Newest first: each new run goes before the first run that is older than it.
    answer.runs.forEach((run, index) => {
      if (current.has(run.id) || !fetched.has(run.id)) {
        return;
      }
      const holder = document.createElement("div");
      holder.innerHTML = fetched.get(run.id); // escaped by the server
      const section = holder.firstElementChild;
      const next = answer.runs.slice(index + 1).map((r) => current.get(r.id)).find(Boolean);
      list.insertBefore(section, next || null);
      current.set(run.id, section);
      added += 1;
    });
    for (const [id, section] of current) {
      const decided = !waiting.has(id) || pauses.get(id) !== section.dataset.pause;
      if (!decided) {
        continue;
      }
      if (!busy(section)) {
        section.remove();
      } else if (section.dataset.busy !== "yes") {
        stale(section, waiting.has(id));
      }
    }
    document.getElementById("empty").hidden = list.querySelector("section.run") !== null;
    if (added > 0) {
      news.textContent = added === 1 ? "A new run waits for you." : added + " new runs wait for you.";
    }
  }

  // A form someone is filling in for a run decided elsewhere: say so, and offer the way on,
  // rather than let the person submit what would be refused.
  function stale(section, waitsAgain) {
    if (section.dataset.stale === "yes") {
      return;
    }
    section.dataset.stale = "yes";
    const notice = document.createElement("p");
    notice.className = "stale";
    notice.setAttribute("role", "alert");
    notice.append(waitsAgain
      ? "This run was decided elsewhere (another tab or another person) while you filled this in, and now waits for new decisions. Your choices here were not sent. "
      : "This run was decided elsewhere (another tab or another person) while you filled this in. Your choices here were not sent. ");
    const link = document.createElement("a");
    link.href = waitsAgain ? "./" : "outcome?run=" + encodeURIComponent(section.dataset.run);
    link.textContent = waitsAgain ? "Reload the list" : "See what came of it";
    notice.append(link);
    section.querySelector("header").after(notice);
    for (const button of section.querySelectorAll("button[type=submit]")) {
      button.disabled = true;
    }
  }

  // Edited arguments: checked against the tool as the person types (the server answers what
  // does not fit), the error shown at the field; while "Allow, edited" is chosen, an error
  // keeps the form from being sent. The server checks the decision again when it is.
  function editOf(field) {
    const name = field.name.replace(/\.(arguments|verdict)$/, "");
    const form = field.form;
    return {
      form,
      text: form.querySelector(`textarea[name="${name}.arguments"]`),
      chosen: form.querySelector(`input[name="${name}.verdict"][value="edit"]`),
    };
  }

  function showCheck(edit) {
    const error = edit.text.dataset.error || "";
    const applies = edit.chosen.checked && error !== "";
    edit.text.setCustomValidity(applies ? error : "");
    edit.text.setAttribute("aria-invalid", applies ? "true" : "false");
    const shownAt = document.getElementById(edit.text.getAttribute("aria-describedby"));
    shownAt.textContent = error;
    shownAt.hidden = error === "";
    if (applies) {
      edit.text.closest("details").open = true;
    }
  }

  const checks = new WeakMap();
  async function check(edit) {
    const asked = edit.text.value;
    const body = new URLSearchParams({
      csrf: edit.form.querySelector("input[name=csrf]").value,
      tool: edit.text.dataset.tool,
      arguments: asked,
    });
    try {
      const response = await fetch("check", { method: "POST", body, credentials: "same-origin" });
      if (!response.ok || edit.text.value !== asked) {
        return; // the server refused to check, or the text changed since: the next check says
      }
      const answer = await response.json();
      edit.text.dataset.error = answer.error || "";
    } catch (_) {
      return; // checked when submitted
    }
    showCheck(edit);
  }

  list.addEventListener("input", (event) => {
    const field = event.target;
    if (!field.name || !field.name.endsWith(".arguments")) {
      return;
    }
    const edit = editOf(field);
    edit.chosen.checked = true;
    clearTimeout(checks.get(field));
    checks.set(field, setTimeout(() => check(edit), 250));
  });

  list.addEventListener("change", (event) => {
    const field = event.target;
    if (field.type !== "radio" || !field.name.endsWith(".verdict")) {
      return;
    }
    const edit = editOf(field);
    if (edit.text) {
      if (field.value === "edit") {
        edit.text.closest("details").open = true;
      }
      showCheck(edit);
    }
  });

  list.addEventListener("submit", (event) => {
    const form = event.target;
    form.closest("section.run").dataset.busy = "yes";
    const pressed = event.submitter;
    // Disabled once the browser has read the form: the server refuses a second submit anyway.
    setTimeout(() => {
      for (const button of form.querySelectorAll("button[type=submit]")) {
        button.disabled = true;
      }
      if (pressed) {
        pressed.textContent = "Deciding…";
      }
    }, 0);
  });

  setInterval(refresh, POLL_MS);
})();
