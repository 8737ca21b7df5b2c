/* kgraph viz: draws the graph from the page's JSON data block with cytoscape.js.
 *
 * Runs before the library and the data are parsed, so its error listeners see everything;
 * the drawing starts on DOMContentLoaded. Every text from the data reaches the page through
 * textContent (never innerHTML). The outcome is written to <html> attributes for tests and
 * scripts: data-ready, data-nodes, data-edges, data-errors, data-render-ms. The selected node,
 * the area filter and the search live in the URL's hash (#node=ID&area=NAME&q=TEXT), so a
 * link to the page can point at one node.
 */
(function () {
  'use strict';

  var root = document.documentElement;
  var errors = [];

  function recordError(message) {
    errors.push(String(message));
    root.setAttribute('data-errors', String(errors.length));
    root.setAttribute('data-error-messages', errors.slice(0, 5).join(' | '));
  }

  root.setAttribute('data-errors', '0');
  window.addEventListener('error', function (event) {
    recordError(event.message || 'error');
  });
  window.addEventListener('unhandledrejection', function (event) {
    recordError('unhandled rejection: ' + event.reason);
  });
  document.addEventListener('securitypolicyviolation', function (event) {
    recordError('blocked by the content security policy: ' + event.violatedDirective + ' ' + event.blockedURI);
  });

  var COLORS = {
    Mistake: '#d62728', Learning: '#1f77b4', Pattern: '#2ca02c', Topic: '#9467bd',
    CodeArea: '#8c96a5', File: '#e8c547', Symbol: '#17becf'
  };
  var SHAPES = {
    Mistake: 'diamond', Learning: 'ellipse', Pattern: 'hexagon', Topic: 'star',
    CodeArea: 'round-rectangle', File: 'rectangle', Symbol: 'ellipse'
  };
  var SIZES = { Mistake: 26, Learning: 14, Pattern: 24, Topic: 18, CodeArea: 30, File: 12, Symbol: 10 };
  var EDGE_COLORS = {
    ABOUT: '#c3cad5', IN_FILE: '#d9b93a', LED_TO: '#d62728', APPLIES_TO: '#2ca02c',
    SUPERSEDES: '#9467bd', PART_OF: '#b9a3d6', DEPENDS_ON: '#a9c3de', CALLS: '#1f77b4',
    IMPORTS: '#17becf', EXTENDS: '#ff7f0e', IMPLEMENTS: '#ff7f0e'
  };
  var TYPE_NAMES = {
    Mistake: 'Mistakes', Learning: 'Learnings', Pattern: 'Patterns', Topic: 'Topics',
    CodeArea: 'Code areas', File: 'Files', Symbol: 'Code symbols'
  };

  function make(tag, className, text) {
    var element = document.createElement(tag);
    if (className) element.className = className;
    if (text !== undefined) element.textContent = text;
    return element;
  }

  function byKey(map, key, fallback) {
    return Object.prototype.hasOwnProperty.call(map, key) ? map[key] : fallback;
  }

  function graphStyle(big) {
    var style = [
      {
        selector: 'node',
        style: {
          'background-color': function (n) { return byKey(COLORS, n.data('type'), '#999'); },
          shape: function (n) { return byKey(SHAPES, n.data('type'), 'ellipse'); },
          width: function (n) { return byKey(SIZES, n.data('type'), 12) + Math.min(40, 4 * Math.sqrt(n.data('weight') - 1)); },
          height: function (n) { return byKey(SIZES, n.data('type'), 12) + Math.min(40, 4 * Math.sqrt(n.data('weight') - 1)); },
          label: 'data(short)',
          'font-size': 9,
          color: '#2a3240',
          'text-valign': 'bottom',
          'text-margin-y': 2,
          'text-wrap': 'ellipsis',
          'text-max-width': 140,
          'min-zoomed-font-size': 7,
          'border-width': 1,
          'border-color': 'rgba(0,0,0,0.35)'
        }
      },
      {
        selector: 'node[type = "CodeArea"]',
        style: {
          'font-size': big ? 22 : 13, 'font-weight': 'bold', 'min-zoomed-font-size': 5,
          'text-wrap': 'wrap', 'text-max-width': 400, 'z-index': 10
        }
      },
      {
        // Mistakes and Patterns are what a person most needs to see: larger, labelled bold.
        selector: 'node[type = "Mistake"], node[type = "Pattern"]',
        style: { 'font-size': 11, 'font-weight': 'bold', 'z-index': 20 }
      },
      {
        selector: ':parent',
        style: {
          'background-opacity': 0.12, 'text-valign': 'top', 'text-margin-y': -2,
          'padding': 10, shape: 'round-rectangle'
        }
      },
      {
        // On the map an area is a box sized by its files, drawn or not (its extent).
        selector: 'node[type = "CodeArea"][w]',
        style: {
          width: 'data(w)', height: 'data(h)', shape: 'round-rectangle', 'background-opacity': 0.12,
          'text-valign': 'center', 'text-max-width': 'data(w)',
          // Captions stay readable when the whole map is fitted on the screen.
          'font-size': function (n) { return Math.max(14, Math.min(36, n.data('w') / 12)); }
        }
      },
      {
        selector: 'node[type = "CodeArea"][w]:parent',
        style: { 'min-width': 'data(w)', 'min-height': 'data(h)', 'text-valign': 'top' }
      },
      {
        // On the map a file is one of a few dozen: drawn large enough to read when fitted.
        selector: 'node[placed][type = "File"]',
        style: { 'font-size': 18, width: 22, height: 22, 'text-max-width': 200 }
      },
      {
        selector: 'node[placed][type = "Mistake"], node[placed][type = "Pattern"]',
        style: { 'font-size': 18, width: 34, height: 34, 'text-max-width': 200 }
      },
      {
        selector: 'node[placed][type = "Learning"], node[placed][type = "Topic"]',
        style: { 'font-size': 15, 'text-max-width': 200 }
      },
      { selector: 'node[state = "superseded"]', style: { opacity: 0.5, 'border-style': 'dashed', 'border-width': 2 } },
      { selector: 'node[role = "focus"]', style: { 'border-width': 5, 'border-color': '#111' } },
      { selector: 'node[role = "caller"], node[role = "dependent"]', style: { 'border-width': 3, 'border-color': '#ff7f0e' } },
      { selector: 'node[role = "callee"], node[role = "dependency"]', style: { 'border-width': 3, 'border-color': '#17a2b8' } },
      {
        selector: 'edge',
        style: {
          width: function (e) { return Math.min(6, 0.8 + Math.log(e.data('weight'))); },
          'line-color': function (e) { return byKey(EDGE_COLORS, e.data('type'), '#bbb'); },
          'target-arrow-color': function (e) { return byKey(EDGE_COLORS, e.data('type'), '#bbb'); },
          'target-arrow-shape': big ? 'none' : 'triangle',
          'arrow-scale': 0.7,
          'curve-style': big ? 'haystack' : 'bezier',
          opacity: 0.8
        }
      },
      { selector: 'edge[type = "SUPERSEDES"]', style: { 'line-style': 'dashed' } },
      { selector: 'edge[type = "DEPENDS_ON"][?inside]', style: { opacity: 0.3 } },
      { selector: 'edge[type = "DEPENDS_ON"], edge[type = "ABOUT"]', style: { opacity: big ? 0.35 : 0.6 } },
      { selector: '.hidden', style: { display: 'none' } },
      { selector: '.dim', style: { opacity: 0.12 } },
      { selector: 'node.hit', style: { 'border-width': 4, 'border-color': '#ff9800', opacity: 1 } },
      { selector: 'node:selected', style: { 'border-width': 5, 'border-color': '#e91e63', opacity: 1 } }
    ];
    return style;
  }

  function layoutOptions(count) {
    return {
      name: 'cose',
      animate: false,
      randomize: true,
      fit: true,
      padding: 30,
      nodeDimensionsIncludeLabels: false,
      idealEdgeLength: function () { return count > 150 ? 60 : 50; },
      nodeRepulsion: function () { return count > 150 ? 200000 : 60000; },
      edgeElasticity: function () { return 150; },
      nestingFactor: 1.2,
      gravity: 0.5,
      numIter: count > 300 ? 400 : 1000,
      componentSpacing: 60,
      coolingFactor: 0.95,
      minTemp: 1.0
    };
  }

  function shortLabel(node) {
    if (node.type === 'CodeArea' && node.weight > 1 && node.short === node.label) {
      return node.label + ' (' + (node.weight - 1) + ')';
    }
    return node.short;
  }

  function readHash() {
    var state = {};
    window.location.hash.replace(/^#/, '').split('&').forEach(function (pair) {
      if (!pair) return;
      var at = pair.indexOf('=');
      try {
        state[decodeURIComponent(at < 0 ? pair : pair.slice(0, at))] =
          at < 0 ? '' : decodeURIComponent(pair.slice(at + 1));
      } catch (error) { /* a malformed escape: ignore that pair */ }
    });
    return state;
  }

  function start() {
    var data = JSON.parse(document.getElementById('kgraph-data').textContent);
    var nodes = {};
    data.nodes.forEach(function (node) { nodes[node.id] = node; });

    document.getElementById('title').textContent = data.title;
    var notes = document.getElementById('notes');
    data.notes.forEach(function (note) { notes.appendChild(make('p', '', note)); });
    if (typeof cytoscape !== 'function') {
      recordError('the graph library did not load');
      return;
    }

    var elements = [];
    data.nodes.forEach(function (node) {
      var d = {
        id: node.id, type: node.type, label: node.label, short: shortLabel(node),
        role: node.role, state: node.state, weight: node.weight
      };
      if (node.parent && nodes[node.parent]) d.parent = node.parent;
      if (node.extent) { d.w = node.extent[0]; d.h = node.extent[1]; }
      if (node.position) d.placed = 1;
      elements.push({ group: 'nodes', data: d });
    });
    data.edges.forEach(function (edge, index) {
      elements.push({
        group: 'edges',
        data: {
          id: 'e' + index, source: edge.source, target: edge.target, type: edge.type, weight: edge.weight,
          inside: Boolean(nodes[edge.source] && nodes[edge.target] &&
            nodes[edge.source].parent && nodes[edge.source].parent === nodes[edge.target].parent)
        }
      });
    });

    var big = data.nodes.length > 300 || data.edges.length > 1500;
    var cy = cytoscape({
      container: document.getElementById('graph'),
      elements: elements,
      style: graphStyle(big),
      minZoom: 0.05,
      maxZoom: 5,
      textureOnViewport: big,
      hideEdgesOnViewport: big,
      boxSelectionEnabled: false
    });

    var panel = document.getElementById('panel');
    var searchBox = document.getElementById('search');
    var searchStatus = document.getElementById('search-status');
    var areaSelect = document.getElementById('area');
    var shown = {};
    var showSuperseded = true;

    function describe(id) {
      var node = nodes[id];
      panel.textContent = '';
      if (!node) return;
      var kind = node.kind && node.kind !== node.type ? ' · ' + node.kind : '';
      panel.appendChild(make('h2', '', node.type + kind));
      panel.appendChild(make('span', 'ref', node.ref));
      panel.appendChild(make('div', 'text', node.text));
      var list = make('dl');
      node.details.forEach(function (pair) {
        list.appendChild(make('dt', '', pair[0]));
        list.appendChild(make('dd', '', pair[1]));
      });
      if (node.areas.length) {
        list.appendChild(make('dt', '', 'areas'));
        list.appendChild(make('dd', '', node.areas.join(', ')));
      }
      panel.appendChild(list);
      var links = cy.getElementById(id).connectedEdges();
      if (links.length) {
        panel.appendChild(make('h2', '', 'Links (' + links.length + ')'));
        var ul = make('ul');
        links.slice(0, 200).forEach(function (edge) {
          var outgoing = edge.source().id() === id;
          var other = outgoing ? edge.target().id() : edge.source().id();
          var li = make('li');
          li.appendChild(make('span', 'edge-type', (outgoing ? '→ ' : '← ') + edge.data('type')));
          var button = make('button', '', nodes[other] ? nodes[other].label : other);
          button.type = 'button';
          button.addEventListener('click', function () { select(other); });
          li.appendChild(button);
          ul.appendChild(li);
        });
        panel.appendChild(ul);
      }
    }

    function select(id) {
      var element = cy.getElementById(id);
      if (element.empty()) return false;
      cy.elements(':selected').unselect();
      element.select();
      describe(id);
      return true;
    }

    function writeHash() {
      var parts = [];
      var selected = cy.nodes(':selected');
      if (selected.nonempty()) parts.push('node=' + encodeURIComponent(selected.first().id()));
      if (areaSelect.value) parts.push('area=' + encodeURIComponent(areaSelect.value));
      if (searchBox.value.trim()) parts.push('q=' + encodeURIComponent(searchBox.value.trim()));
      var hash = parts.length ? '#' + parts.join('&') : '';
      if (window.location.hash === hash) return;
      history.replaceState(null, '', hash || window.location.pathname + window.location.search);
    }

    function applyHash() {
      var state = readHash();
      var area = state.area || '';
      var known = Array.prototype.some.call(areaSelect.options, function (o) { return o.value === area; });
      areaSelect.value = known ? area : '';
      searchBox.value = state.q || '';
      applyFilters();
      if (state.node && select(state.node)) {
        cy.center(cy.getElementById(state.node));
      } else {
        cy.elements(':selected').unselect();
        if (known && area) cy.fit(shownNodes(), 30);
      }
    }

    function applyFilters() {
      var area = areaSelect.value;
      cy.batch(function () {
        cy.nodes().forEach(function (element) {
          var node = nodes[element.id()];
          var visible = shown[node.type] !== false &&
            (!area || node.areas.indexOf(area) >= 0) &&
            (showSuperseded || node.state !== 'superseded');
          element.toggleClass('hidden', !visible);
        });
      });
      search(searchBox.value);
    }

    function search(query) {
      var q = query.trim().toLowerCase();
      cy.elements().removeClass('hit dim');
      if (!q) {
        searchStatus.textContent = '';
        return cy.collection();
      }
      var hits = cy.nodes().filter(function (element) {
        var node = nodes[element.id()];
        if (element.hasClass('hidden')) return false;
        return (node.label + '\n' + node.text + '\n' + node.ref).toLowerCase().indexOf(q) >= 0;
      });
      cy.elements().not(hits).not(hits.connectedEdges()).addClass('dim');
      hits.addClass('hit');
      searchStatus.textContent = hits.length + (hits.length === 1 ? ' match' : ' matches');
      return hits;
    }

    var filters = document.getElementById('filters');
    data.types.forEach(function (type) {
      var count = data.nodes.filter(function (n) { return n.type === type; }).length;
      var label = make('label');
      var box = make('input');
      box.type = 'checkbox';
      box.checked = true;
      box.setAttribute('data-type', type);
      box.addEventListener('change', function () { shown[type] = box.checked; applyFilters(); });
      label.appendChild(box);
      label.appendChild(make('span', 'swatch sw-' + type));
      label.appendChild(make('span', '', byKey(TYPE_NAMES, type, type) + ' (' + count + ')'));
      filters.appendChild(label);
    });
    var supersededCount = data.nodes.filter(function (n) { return n.state === 'superseded'; }).length;
    if (supersededCount) {
      var label = make('label');
      var box = make('input');
      box.type = 'checkbox';
      box.checked = true;
      box.addEventListener('change', function () { showSuperseded = box.checked; applyFilters(); });
      label.appendChild(box);
      label.appendChild(make('span', 'swatch sw-superseded'));
      label.appendChild(make('span', '', 'superseded (' + supersededCount + ')'));
      filters.appendChild(label);
    }
    var areas = {};
    data.nodes.forEach(function (n) { n.areas.forEach(function (a) { areas[a] = true; }); });
    Object.keys(areas).sort().forEach(function (area) {
      var option = make('option', '', area);
      option.value = area;
      areaSelect.appendChild(option);
    });
    areaSelect.addEventListener('change', function () {
      applyFilters();
      cy.fit(shownNodes(), 30);  // the area chosen fills the view
      writeHash();
    });
    searchBox.addEventListener('input', function () { search(searchBox.value); writeHash(); });
    searchBox.addEventListener('keydown', function (event) {
      if (event.key !== 'Enter') return;
      var hits = search(searchBox.value);
      if (hits.length) {
        select(hits[0].id());
        cy.center(hits[0]);
      }
    });
    document.getElementById('fit').addEventListener('click', function () { cy.fit(shownNodes(), 30); });
    cy.on('tap', 'node', function (event) { describe(event.target.id()); });
    cy.on('select unselect', 'node', writeHash);
    window.addEventListener('hashchange', applyHash);

    var layoutStarted = performance.now();
    // A laid-out view (the overview's map) is drawn where it says; any other is laid out here.
    var placed = data.nodes.length > 0 && data.nodes.every(function (n) { return n.position; });
    var layout = cy.layout(placed ? {
      name: 'preset', fit: true, padding: 30,
      positions: function (element) {
        var at = nodes[element.id()].position;
        return { x: at[0], y: at[1] };
      }
    } : layoutOptions(data.nodes.length));
    layout.one('layoutstop', function () {
      var layoutMs = performance.now() - layoutStarted;
      cy.fit(undefined, 30);
      if (window.location.hash) applyHash();
      requestAnimationFrame(function () {
        requestAnimationFrame(function () {
          var renderMs = Math.round(performance.now());
          root.setAttribute('data-nodes', String(cy.nodes().length));
          root.setAttribute('data-edges', String(cy.edges().length));
          root.setAttribute('data-layout-ms', String(Math.round(layoutMs)));
          root.setAttribute('data-render-ms', String(renderMs));
          root.setAttribute('data-ready', '1');
          document.title = data.title + ' (' + cy.nodes().length + ' nodes, ' + cy.edges().length + ' edges)';
          document.getElementById('status').textContent =
            cy.nodes().length + ' nodes, ' + cy.edges().length + ' edges; drawn in ' + renderMs +
            ' ms; offline page (no network access).';
        });
      });
    });
    layout.run();

    function shownNodes() {
      function displayed(element) { return element.style('display') !== 'none'; }
      return cy.nodes().filter(function (element) {
        return displayed(element) && element.ancestors().every(displayed);
      });
    }

    window.kgraphViz = {
      cy: cy,
      select: select,
      visible: function () { return shownNodes().length; },
      search: function (query) { searchBox.value = query; return search(query).length; },
      report: function () {
        return {
          ready: root.getAttribute('data-ready') === '1',
          nodes: cy.nodes().length,
          edges: cy.edges().length,
          visible: shownNodes().length,
          errors: errors.slice(),
          panel: panel.textContent
        };
      }
    };
  }

  document.addEventListener('DOMContentLoaded', function () {
    try {
      start();
    } catch (error) {
      recordError(error && error.stack ? error.stack : error);
    }
  });
}());
