// The JavaScript side of web/web_platform.cpp (emcc --pre-js): the browser's file picker, downloads,
// local storage for the settings folder, the URL's fragment, and the page's lifecycle. The C++ side
// calls attnlabWeb.*; these call back through Module._attnlab_web_open_file and
// Module._attnlab_web_save_session.
var attnlabWeb = (function () {
  'use strict';
  var STORAGE_PREFIX = 'attnlab:file:';
  var uploads = 0;

  function storage() {
    try { return window.localStorage; } catch (e) { return null; }  // blocked by the browser's settings
  }

  function mkdirs(path) {
    var parts = path.split('/').filter(function (p) { return p.length > 0; });
    var at = '';
    for (var i = 0; i < parts.length; ++i) {
      at += '/' + parts[i];
      try { FS.mkdir(at); } catch (e) { /* already there */ }
    }
  }

  function parentOf(path) { return path.substring(0, path.lastIndexOf('/')) || '/'; }

  // Before main(): the settings folder's files as the last visit left them (session, recovery, ini).
  function restoreStorage() {
    var s = storage();
    if (!s) return;
    for (var i = 0; i < s.length; ++i) {
      var key = s.key(i);
      if (key.indexOf(STORAGE_PREFIX) !== 0) continue;
      var path = key.substring(STORAGE_PREFIX.length);
      mkdirs(parentOf(path));
      FS.writeFile(path, s.getItem(key));
    }
  }

  function persistFiles(dir, names) {
    var s = storage();
    if (!s) return;
    names.forEach(function (name) {
      var path = dir + '/' + name;
      var text = null;
      try { text = FS.readFile(path, { encoding: 'utf8' }); } catch (e) { /* not there */ }
      try {
        if (text === null) s.removeItem(STORAGE_PREFIX + path);
        else s.setItem(STORAGE_PREFIX + path, text);
      } catch (e) {
        console.warn('attnlab: local storage is full or blocked; ' + name + ' was not kept: ' + e);
      }
    });
  }

  function saveAs(blob, name) {
    var url = URL.createObjectURL(blob);
    var a = document.createElement('a');
    a.href = url;
    a.download = name;
    a.style.display = 'none';
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(url); a.remove(); }, 1000);
  }

  function download(path, name, mime) {
    saveAs(new Blob([FS.readFile(path)], { type: mime }), name);
  }

  // The engine's SVG drawn by the browser onto a canvas, `widthPx` wide (0: two pixels per point,
  // the desktop's default), on white as the desktop's PNGs are.
  function downloadPngFromSvg(svgPath, name, widthPx) {
    var text = FS.readFile(svgPath, { encoding: 'utf8' });
    var url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
    var img = new Image();
    img.onload = function () {
      var w = widthPx > 0 ? widthPx : Math.round(img.naturalWidth * 2);
      var h = Math.max(1, Math.round(w * img.naturalHeight / img.naturalWidth));
      var canvas = document.createElement('canvas');
      canvas.width = w;
      canvas.height = h;
      var ctx = canvas.getContext('2d');
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(0, 0, w, h);
      ctx.drawImage(img, 0, 0, w, h);
      URL.revokeObjectURL(url);
      canvas.toBlob(function (blob) { saveAs(blob, name); }, 'image/png');
    };
    img.onerror = function () {
      URL.revokeObjectURL(url);
      console.warn('attnlab: the browser could not draw ' + name + ' from its SVG');
    };
    img.src = url;
  }

  // The page's own <input type=file> (shell.html): one picker, reused, so tests can reach it too.
  function pickFile(purpose, accept, multiple) {
    var input = document.getElementById('attnlab-file-input');
    input.accept = accept;
    input.multiple = multiple;
    input.value = '';
    input.onchange = function () { receiveFiles(Array.prototype.slice.call(input.files), purpose); };
    input.click();
  }

  // Files into the in-memory file system, one folder per batch, then handed to the app. A model's
  // files arrive together: with its config.json the app opens the folder (a Llama-family model's
  // tokenizer.json and the shards of model.safetensors.index.json included), else its .safetensors.
  function receiveFiles(files, purpose) {
    if (files.length === 0) return;
    var dir = '/uploads/' + (++uploads);
    mkdirs(dir);
    var pending = files.length;
    var paths = [];
    files.forEach(function (file) {
      var path = dir + '/' + file.name.replace(/\//g, '_');
      file.arrayBuffer().then(function (data) {
        FS.writeFile(path, new Uint8Array(data));
        paths.push(path);
      }, function (err) {
        console.warn('attnlab: could not read ' + file.name + ': ' + err);
      }).then(function () {
        if (--pending > 0) return;
        var chosen = paths;
        if (files.length > 1) {
          var weights = paths.filter(function (p) { return /\.safetensors$/i.test(p); });
          var config = paths.some(function (p) { return /\/config\.json$/i.test(p); });
          chosen = weights.length > 0 ? (config ? [dir] : weights.slice(0, 1)) : paths;
        }
        chosen.forEach(function (p) {
          Module.ccall('attnlab_web_open_file', null, ['string', 'number'], [p, purpose]);
        });
      });
    });
  }

  function urlFragment() {
    var h = window.location.hash || '';
    return h.charAt(0) === '#' ? h.substring(1) : h;
  }

  // "Share link": the address with the scenario in its fragment, shown in the address bar (so it
  // can be copied from there too) and copied to the clipboard where the browser allows it.
  function shareLink(fragment) {
    var link = window.location.href.split('#')[0] + '#' + fragment;
    try { history.replaceState(null, '', '#' + fragment); } catch (e) { /* file:// in some browsers */ }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(link).catch(function () { /* no permission: the app shows the link */ });
    }
    return link;
  }

  function ready() {
    console.log('attnlab: ready');
    window.attnlabReady = true;
  }

  function saveSession() {
    if (Module.calledRun && Module._attnlab_web_save_session) Module._attnlab_web_save_session();
  }

  // Where the last frame drew each heatmap, in canvas pixels, and the open document (tests read it).
  function layout() {
    return JSON.parse(Module.ccall('attnlab_web_layout', 'string', [], []));
  }

  // Every labelled ImGui item of the last frame: {label, x0, y0, x1, y1} in CSS pixels.
  function items() {
    return JSON.parse(Module.ccall('attnlab_web_items', 'string', [], []));
  }

  return {
    items: items, layout: layout, restoreStorage: restoreStorage, persistFiles: persistFiles, download: download,
    downloadPngFromSvg: downloadPngFromSvg, pickFile: pickFile, receiveFiles: receiveFiles,
    urlFragment: urlFragment, shareLink: shareLink, ready: ready, saveSession: saveSession
  };
})();

Module.preRun = (Module.preRun || []).concat([attnlabWeb.restoreStorage]);
// A page has no "exit": the session is saved whenever the page is hidden or left.
window.addEventListener('pagehide', attnlabWeb.saveSession);
document.addEventListener('visibilitychange', function () {
  if (document.visibilityState === 'hidden') attnlabWeb.saveSession();
});
// Opening a link with another #preset= or #scenario= in the same tab starts it afresh ("Share link"
// changes the address with history.replaceState, which does not come here).
window.addEventListener('hashchange', function () { window.location.reload(); });
