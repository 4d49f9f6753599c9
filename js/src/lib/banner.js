// The error banner of a widget: shows the model's `error` trait as text, dismissable.
import { h, button } from "./dom.js";

export function errorBanner(model) {
  const text = h("span", { cls: "pw-error-text" });
  const el = h("div", { cls: "pw-error", attrs: { role: "alert" } }, [text]);
  el.append(button("×", () => { el.hidden = true; }, { cls: "pw-error-close", title: "dismiss" }));
  const show = () => {
    const msg = model.get("error") || "";
    text.textContent = msg;
    el.hidden = !msg;
  };
  model.on("change:error", show);
  show();
  return el;
}
