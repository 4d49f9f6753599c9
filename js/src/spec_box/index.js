// ClassPicker's profile-spec box (perfweave/widgets/_spec_box.py): a text box that offers
// completions as the person types, and applies the spec on Apply or Enter. The request that
// applies carries the text itself, so Python applies exactly what the box showed when the
// person clicked; completions are asked for the same way, and Python runs the requests in
// the order they were made. The protocol is in ./protocol.js (generated).
import { errorBanner } from "../lib/banner.js";
import { button, h } from "../lib/dom.js";
import { Channel } from "../lib/request.js";

/** @typedef {import("./protocol.js").WidgetModel} Model */

/** @param {{ model: Model, el: HTMLElement }} view */
function render({ model, el }) {
  const channel = new Channel(model);
  // a name of its own on the page (each view's module is evaluated apart: no counter serves)
  const listId = `pw-spec-options-${Math.random().toString(36).slice(2, 12)}`;
  const input = h("input", {
    cls: "pw-spec-input",
    attrs: {
      type: "text",
      list: listId,
      spellcheck: "false",
      autocomplete: "off",
      "aria-label": "profile specification",
      placeholder: model.get("placeholder"),
    },
  });
  input.value = model.get("value");
  const options = h("datalist", { attrs: { id: listId } });
  const hint = h("div", { cls: "pw-picker-hint", attrs: { "aria-live": "polite" } });
  const apply = button("Apply", () => send(), {
    cls: "pw-picker-apply",
    title: "apply the profile specification (Enter)",
  });
  const label = h("label", { cls: "pw-spec-label", text: model.get("label") });
  const line = h("div", { cls: "pw-spec-line" }, [label, input, options, apply]);
  const root = h("div", { cls: "pw-picker-spec" }, [line, hint]);
  el.append(errorBanner(model), root);

  // completions: one request in flight; text typed meanwhile is asked for when it returns
  let asking = false;
  let again = false;
  async function complete() {
    if (asking) { again = true; return; }
    asking = true;
    const typed = input.value;
    try {
      const reply = await channel.request("complete", { typed });
      // a saved page answers with the completions of the spec it saved: only those fit
      if (reply.ok && reply.typed === input.value) show(reply.options || [], reply.hint || "");
    } catch {
      /* the kernel did not answer: the banner says so */
    } finally {
      asking = false;
    }
    if (again) {
      again = false;
      if (input.value !== typed) complete();
    }
  }
  /** @param {string[]} offered @param {string} text */
  function show(offered, text) {
    options.replaceChildren(...offered.map((o) => h("option", { attrs: { value: o } })));
    hint.textContent = text;
  }
  // apply: the text goes with the request; the box then shows the spec in force (the spec
  // applied, or the one kept when the picker refused it and its banner says why)
  function send() {
    const spec = input.value;
    channel.request("apply", { spec }).then((reply) => {
      if (reply.ok && typeof reply.value === "string" && input.value === spec) {
        input.value = reply.value;
        complete();
      }
    }).catch(() => { /* the banner says the kernel did not answer */ });
  }
  input.addEventListener("input", () => complete());
  input.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") { ev.preventDefault(); send(); }
  });
  const onValue = () => {
    input.value = model.get("value");
    complete();
  };
  model.on("change:value", onValue);
  complete();
  return () => {
    model.off("change:value", onValue);
    channel.close();
  };
}

export default { render };
