// Projector mode: show the ranking a screenful at a time, cycling every few seconds.
(function () {
  "use strict";

  var SECONDS = 12;
  var page = 0;

  function rows() {
    return Array.prototype.slice.call(document.querySelectorAll(".projector-ranking tbody tr"));
  }

  function perScreen() {
    var first = rows()[0];
    var height = first ? first.getBoundingClientRect().height || 64 : 64;
    var groups = document.querySelectorAll(".projector-ranking .ranking-group").length || 1;
    var columns = window.innerWidth >= 1100 && groups > 1 ? 1 : groups;
    var room = window.innerHeight - 260;
    return Math.max(4, Math.floor(room / height / Math.max(1, columns)));
  }

  function show() {
    var size = perScreen();
    var groups = document.querySelectorAll(".projector-ranking .ranking-group");
    var longest = 0;
    for (var g = 0; g < groups.length; g++) {
      var lines = groups[g].querySelectorAll("tbody tr");
      longest = Math.max(longest, lines.length);
    }
    var pages = Math.max(1, Math.ceil(longest / size));
    if (page >= pages) page = 0;
    for (var i = 0; i < groups.length; i++) {
      var trs = groups[i].querySelectorAll("tbody tr");
      for (var j = 0; j < trs.length; j++) {
        var visible = j >= page * size && j < (page + 1) * size;
        trs[j].classList.toggle("page-hidden", !visible);
      }
    }
  }

  function next() {
    page += 1;
    show();
  }

  document.addEventListener("traveller:updated", show);
  window.addEventListener("resize", show);
  show();
  window.setInterval(next, SECONDS * 1000);
})();
