// Appended by .ci/render-report to a copy of a report.html (the report itself runs no
// script): measures the rendered page at 1280×800, scrolled to the top, and writes what
// it found as JSON into <pre id="render-layout"> for the script to judge.
//   order         the first three things in <body> (tag, or a section's id)
//   firstFailure  the bottom of the first "What failed" line, px from the top (or null)
//   gridTop       the top of the scenario × property grid (or null)
//   failedCells   how many grid cells show a failure
//   lanes         download lanes whose label does not begin with their video
//   overlaps      pairs of words on a timeline whose rendered boxes overlap
(function () {
  var found = { order: [], firstFailure: null, gridTop: null, failedCells: 0, lanes: [], overlaps: [] };
  var children = Array.prototype.filter.call(document.body.children, function (e) { return e.tagName !== 'SCRIPT'; });
  found.order = children.slice(0, 3).map(function (e) {
    return e.tagName === 'SECTION' ? (e.id || e.className) : e.tagName.toLowerCase();
  });
  var failure = document.querySelector('#failures li');
  if (failure) found.firstFailure = failure.getBoundingClientRect().bottom;
  var grid = document.querySelector('table.grid');
  if (grid) found.gridTop = grid.getBoundingClientRect().top;
  found.failedCells = document.querySelectorAll('table.grid td.cell-failed').length;

  document.querySelectorAll('g.lane[data-lane^="download:"]').forEach(function (lane) {
    var video = lane.getAttribute('data-video') || '';
    var label = lane.querySelector('text.lane-label');
    var shown = label && label.firstChild ? label.firstChild.textContent : '';
    var cut = shown.split('…')[0];
    var names = video !== '' && (shown.indexOf(video) === 0 || (shown.indexOf('…') > 0 && video.indexOf(cut) === 0));
    if (!names) found.lanes.push(lane.getAttribute('data-lane') + ': label "' + shown + '", video "' + video + '"');
  });

  document.querySelectorAll('svg.timeline').forEach(function (svg, index) {
    var words = Array.prototype.map.call(svg.querySelectorAll('text.marker, text.lane-label, text.tick'), function (node) {
      return { text: (node.firstChild ? node.firstChild.textContent : ''), box: node.getBoundingClientRect() };
    }).filter(function (word) { return word.box.width > 0 && word.box.height > 0; });
    for (var i = 0; i < words.length; i++) {
      for (var j = i + 1; j < words.length; j++) {
        var a = words[i].box, b = words[j].box;
        if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) {
          found.overlaps.push('timeline ' + (index + 1) + ': "' + words[i].text + '" and "' + words[j].text + '"');
        }
      }
    }
  });

  var out = document.createElement('pre');
  out.id = 'render-layout';
  out.textContent = JSON.stringify(found);
  document.body.appendChild(out);
})();
