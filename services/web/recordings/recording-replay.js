/* global document, window, fetch */
/**
 * The replay page's boot script, served at /assets/replay.js (recording-assets.ts) after
 * rrweb-player's build, which defines window.rrwebPlayer. It reads where the events are and where
 * to start from #replay's data attributes (the page has no inline script), fetches the recording's
 * events with the session cookie (cleaned by the service of what would run or fetch: the
 * recorder's read/replay/clean-events.ts), marks clicks and navigations as custom events so the
 * player's timeline shows them beside the SDK's svc.error marks, opens the player paused at the
 * asked time, and keeps the status line under it in step with playing, pausing, seeking and the
 * end. Recorded content is
 * untrusted: rrweb replays it in an iframe sandboxed without scripts, and this script puts text into
 * the page only as text (textContent).
 */
;(function () {
  'use strict'
  /** Timeline colours: errors red, clicks the accent blue, navigations green. */
  var TAGS = { 'svc.error': '#d92d20', click: '#2450d8', navigation: '#1a7f37' }
  /**
   * Drawn into the replayed page: an image whose src the service took out (it pointed at the
   * recorded site, which the replay never fetches from) shows as a grey box of the size the page
   * gave it instead of a broken-image icon. In :where(), so the page's own style of its images wins.
   */
  var REPLAY_STYLE = [':where(img:not([src])) { background: #e5e7eb; }']
  var FULL_SNAPSHOT = 2
  var INCREMENTAL = 3
  var META = 4
  var CUSTOM = 5
  var SOURCE_MOUSE = 2
  var MOUSE_CLICK = 2

  var root = document.getElementById('replay')
  var status = document.getElementById('replay-status')
  if (!root) return

  function say(text) {
    if (status) status.textContent = text
  }

  function clock(ms) {
    var seconds = Math.max(0, Math.floor(ms / 1000))
    var h = Math.floor(seconds / 3600)
    var m = Math.floor((seconds % 3600) / 60)
    var s = seconds % 60
    var mm = (m < 10 ? '0' : '') + m
    var ss = (s < 10 ? '0' : '') + s
    return h > 0 ? h + ':' + mm + ':' + ss : mm + ':' + ss
  }

  /** The events in time order with a custom marker after each click and after each navigation's page. */
  function withMarkers(events) {
    var sorted = events
      .map(function (event, index) {
        return { event: event, index: index }
      })
      .sort(function (a, b) {
        return a.event.timestamp - b.event.timestamp || a.index - b.index
      })
      .map(function (entry) {
        return entry.event
      })
    var out = []
    var navigation = null
    for (var i = 0; i < sorted.length; i++) {
      var event = sorted[i]
      out.push(event)
      if (event.type === META) {
        navigation = { type: CUSTOM, timestamp: event.timestamp, data: { tag: 'navigation', payload: { href: String(event.data.href || '') } } }
        // The page is drawn by the full snapshot that follows its meta event: the mark goes after it.
        var next = sorted[i + 1]
        if (next && next.type === FULL_SNAPSHOT) continue
      }
      if (navigation) {
        navigation.timestamp = event.timestamp
        out.push(navigation)
        navigation = null
      }
      if (event.type === INCREMENTAL && event.data.source === SOURCE_MOUSE && event.data.type === MOUSE_CLICK) {
        out.push({ type: CUSTOM, timestamp: event.timestamp, data: { tag: 'click', payload: { id: event.data.id } } })
      }
    }
    return out
  }

  function start(answer) {
    var events = Array.isArray(answer.events) ? answer.events : []
    if (events.length === 0) return say('No events of this recording could be read, so there is nothing to replay.')
    var marked = withMarkers(events)
    var first = marked[0].timestamp
    var total = marked[marked.length - 1].timestamp - first
    var width = Math.max(320, Math.min(root.clientWidth || 960, 1200))
    var Player = window.rrwebPlayer && (window.rrwebPlayer.Player || window.rrwebPlayer.default || window.rrwebPlayer)
    if (typeof Player !== 'function') return say('The replay player did not load. Reload the page.')
    var player = new Player({
      target: root,
      props: { events: marked, width: width, height: Math.round((width * 9) / 16), autoPlay: false, tags: TAGS, showController: true, skipInactive: true, insertStyleRules: REPLAY_STYLE },
    })
    var note = ' Red marks are errors, blue clicks, green page loads.'
    if (answer.capped_at_seq !== null && answer.capped_at_seq !== undefined) note += ' The replay stops at chunk ' + answer.capped_at_seq + ': the session is longer than one replay holds.'
    if (Array.isArray(answer.unreadable_seqs) && answer.unreadable_seqs.length > 0) note += ' ' + answer.unreadable_seqs.length + ' stored chunk(s) could not be read and are skipped.'
    var position = followPosition(player, total, note)
    var at = Number(root.dataset.at)
    var offset = Number.isFinite(at) ? Math.min(Math.max(0, at - first), total) : 0
    player.goto(offset, false)
    position.seeked(offset)
    root.dataset.ready = 'true'
    // The timeline's time links seek the player instead of reloading the page.
    var links = document.querySelectorAll('a[data-at]')
    for (var j = 0; j < links.length; j++) {
      links[j].addEventListener('click', function (click) {
        var target = Number(click.currentTarget.getAttribute('data-at'))
        if (!Number.isFinite(target)) return
        click.preventDefault()
        // A paused replay shows the events before its time: one millisecond on, the step itself is drawn.
        var to = Math.min(Math.max(0, target - first + 1), total)
        player.goto(to, false)
        position.seeked(to)
        root.scrollIntoView({ block: 'start' })
      })
    }
  }

  /**
   * The status line follows the player: "Playing at", "Paused at" or "Ended at" the player's time,
   * from rrweb-player's events (its time while it plays or after a seek, its state, and the
   * replayer's finish). The text changes once a second at most while playing, and the line is no
   * live region then, so a screen reader is not read the clock; pausing, a seek and the end are
   * announced.
   */
  function followPosition(player, total, note) {
    var state = { playing: false, ended: false, time: 0 }
    function show() {
      var word = state.playing ? 'Playing' : state.ended ? 'Ended' : 'Paused'
      if (status) status.setAttribute('aria-live', state.playing ? 'off' : 'polite')
      var text = word + ' at ' + clock(state.time) + ' of ' + clock(total) + '.' + note
      if (!status || status.textContent !== text) say(text)
    }
    player.addEventListener('ui-update-current-time', function (detail) {
      var time = detail && typeof detail.payload === 'number' ? Math.min(Math.max(0, detail.payload), total) : state.time
      // The player's clock runs a frame or two past its finish: only a seek back leaves the end.
      if (state.ended && time >= total - 1000) return
      state.time = time
      state.ended = false
      show()
    })
    player.addEventListener('ui-update-player-state', function (detail) {
      state.playing = Boolean(detail && detail.payload === 'playing')
      if (state.playing) state.ended = false
      show()
    })
    player.addEventListener('finish', function () {
      state.playing = false
      state.ended = true
      state.time = total
      show()
    })
    return {
      /** A seek made here: the player reports its time only on its next frame. */
      seeked: function (time) {
        state.time = time
        state.ended = false
        show()
      },
    }
  }

  say('Loading the replay…')
  fetch(root.dataset.events, { credentials: 'same-origin', headers: { accept: 'application/json' } })
    .then(function (response) {
      return response.json().then(function (body) {
        if (!response.ok) throw new Error(typeof body.message === 'string' ? body.message : 'The events could not be loaded (' + response.status + ').')
        return body
      })
    })
    .then(start)
    .catch(function (error) {
      say('The replay could not be loaded: ' + (error && error.message ? error.message : String(error)))
    })
})()
