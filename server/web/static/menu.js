// The TD's menu button on a phone: a real <button> with aria-expanded for the navigation it
// controls. Without JavaScript the button stays hidden and the navigation is shown open.
(function () {
  "use strict";
  function ready() {
    document.querySelectorAll("button.nav-button[aria-controls]").forEach(function (button) {
      var bar = button.closest(".topbar");
      if (!bar) return;
      button.hidden = false;
      bar.classList.add("menu-ready");
      button.addEventListener("click", function () {
        var open = button.getAttribute("aria-expanded") !== "true";
        button.setAttribute("aria-expanded", open ? "true" : "false");
      });
      document.addEventListener("keydown", function (event) {
        if (event.key === "Escape" && button.getAttribute("aria-expanded") === "true") {
          button.setAttribute("aria-expanded", "false");
          button.focus();
        }
      });
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
