/**
 * What the HTML page carries besides the session: its style and its one
 * script, inlined (the page loads nothing), and the Content-Security-Policy
 * that lets only that script run — by its hash, so no inline handler or
 * `javascript:` address could run even if markup from a session got in —
 * and lets nothing be fetched (images only as data: addresses).
 *
 * The script builds the sidebar from the turns on the page (so the export
 * holds no list of turns while it writes), and gives search, the filters
 * (prompts only, no tools, problems only), `j`/`k` between turns, `/` to
 * search, and folds opened for printing.
 */
import { createHash } from "node:crypto"

export const STYLE = `
:root{color-scheme:light dark;--bg:#fbfbfa;--fg:#1d1d1f;--muted:#6b6b70;--line:#e2e2e0;--panel:#f2f2ef;--user:#eef4ff;--tool:#f6f3ec;
--accent:#2f5fd0;--problem:#b42318;--problem-bg:#fdecea;--mark:#fff6d6;--code:#f0efeb;--k:#8a2be2;--s:#1f7a3a;--c:#8a8a8a;--n:#b35900}
@media (prefers-color-scheme:dark){:root{--bg:#17181a;--fg:#e6e6e3;--muted:#9a9aa0;--line:#2d2f33;--panel:#1f2124;--user:#1c2740;
--tool:#24221d;--accent:#7aa2ff;--problem:#ff8a80;--problem-bg:#3a1d1b;--mark:#36301a;--code:#222428;--k:#c792ea;--s:#9ece6a;--c:#7f848e;--n:#ff9e64}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
code,pre{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,monospace;font-size:13px}
pre{background:var(--code);padding:8px 10px;border-radius:6px;overflow:auto;white-space:pre-wrap;word-break:break-word;margin:6px 0}
#side{position:fixed;top:0;left:0;bottom:0;width:280px;overflow:auto;border-right:1px solid var(--line);background:var(--panel);padding:12px}
#side input[type=search]{width:100%;padding:6px 8px;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}
#side label{display:block;font-size:13px;color:var(--muted)}
#side .buttons{margin:6px 0}#side button{font-size:12px;margin:2px 2px 2px 0}
#count{font-size:12px;color:var(--muted);margin:4px 0}
#toc{list-style:none;padding:0;margin:8px 0;font-size:13px}#toc li{display:block}
#toc li a{display:block;padding:3px 6px;border-radius:4px;color:var(--fg);text-decoration:none;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
#toc li a:hover,#toc li.current a{background:var(--line)}#toc li.problem a{color:var(--problem)}#toc li.hidden{display:none}
main{margin-left:280px;padding:16px 28px;max-width:1100px}
header.session h1{font-size:20px;margin:0 0 6px}
header.session dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0;font-size:13px}
header.session dt{color:var(--muted)}header.session dd{margin:0}
.turn{border-top:1px solid var(--line);padding:10px 0 14px;content-visibility:auto;contain-intrinsic-size:auto 400px}
.turn h2{font-size:16px;margin:6px 0 2px}.turn h2 a{color:var(--fg);text-decoration:none}
.turn.current h2 a{color:var(--accent)}.turn.hidden{display:none}
.meta,.note{font-size:12px;color:var(--muted);margin:0 0 6px}
.badge{display:inline-block;font-size:11px;font-weight:600;padding:0 6px;border-radius:9px;background:var(--line);color:var(--muted);vertical-align:middle}
.badge.problem{background:var(--problem-bg);color:var(--problem)}
.item{margin:8px 0;padding:6px 10px;border-radius:8px;border-left:3px solid var(--line)}
.item .who{font-size:12px;font-weight:600;color:var(--muted);text-transform:none}
.item.user{background:var(--user);border-left-color:var(--accent)}
.item.tool{background:var(--tool)}.item.tool-result.error{border-left-color:var(--problem)}
.item.mark{background:var(--mark);border-left-color:#c9a227}.item.mark.degrade,.item.mark.refusal,.item.mark.cut{border-left-color:var(--problem)}
.item.assistant.problem{border-left-color:var(--problem)}
.md>:first-child{margin-top:2px}.md>:last-child{margin-bottom:2px}
.md table{border-collapse:collapse}.md td,.md th{border:1px solid var(--line);padding:2px 6px}
.md blockquote{margin:4px 0;padding-left:10px;border-left:3px solid var(--line);color:var(--muted)}
pre.code .lang{float:right;font-size:11px;color:var(--muted)}
.hl-k{color:var(--k)}.hl-s{color:var(--s)}.hl-c{color:var(--c);font-style:italic}.hl-n{color:var(--n)}
pre.diff .del{color:var(--problem)}pre.diff .add{color:var(--s)}pre.diff .hunk{color:var(--accent)}pre.diff .head{font-weight:600}
details>summary{cursor:pointer;font-size:12px;color:var(--muted)}
.end{font-size:13px;color:var(--muted);margin-top:6px}.turn .end:not(.end-completed){color:var(--problem)}
.item.mark p{margin:4px 0}
.trailer{border-top:1px solid var(--line);padding-top:10px}
body.f-prompts .turn .item:not(.user),body.f-prompts .turn .meta{display:none}
body.f-notools .turn .item.tool{display:none}
body.f-problems .turn:not(.problem){display:none}body.f-problems #toc li:not(.problem){display:none}
mark{background:#ffd54a;color:#000}
@media (max-width:800px){#side{position:static;width:auto;border-right:0}main{margin-left:0}}
@media print{#side{display:none}main{margin:0;max-width:none}.turn{content-visibility:visible;break-inside:auto}
body{background:#fff;color:#000}pre{white-space:pre-wrap}}
`

export const SCRIPT = `(function(){
"use strict";
var turns=Array.prototype.slice.call(document.querySelectorAll("section.turn"));
var toc=document.getElementById("toc"),search=document.getElementById("search"),count=document.getElementById("count");
function entry(t){
  var li=document.createElement("li");var a=document.createElement("a");
  a.href="#"+t.id;a.textContent=t.dataset.turn+" · "+(t.dataset.title||"(no prompt)")+(t.dataset.badges?" · "+t.dataset.badges:"");
  if(t.classList.contains("problem"))li.classList.add("problem");
  li.appendChild(a);return li;
}
var links=turns.map(function(t){var li=entry(t);toc.appendChild(li);return li;});
function visible(){var problems=document.body.classList.contains("f-problems");
  return turns.filter(function(t){return !t.classList.contains("hidden")&&(!problems||t.classList.contains("problem"));});}
function showCount(){var n=turns.filter(function(t){return !t.classList.contains("hidden");}).length;
  count.textContent=(n===turns.length?"":n.toLocaleString("en-US")+" of ")+turns.length.toLocaleString("en-US")+" turn"+(turns.length===1?"":"s");}
var timer;
function runSearch(){
  var q=search.value.trim().toLowerCase();
  turns.forEach(function(t,i){var hit=q===""||t.textContent.toLowerCase().indexOf(q)>=0;
    t.classList.toggle("hidden",!hit);links[i].classList.toggle("hidden",!hit);});
  showCount();
}
search.addEventListener("input",function(){clearTimeout(timer);timer=setTimeout(runSearch,120);});
Array.prototype.forEach.call(document.querySelectorAll("input[data-filter]"),function(box){
  box.addEventListener("change",function(){document.body.classList.toggle("f-"+box.dataset.filter,box.checked);});
});
var thinking=document.getElementById("thinking"),results=document.getElementById("results");
thinking.addEventListener("click",function(){var all=document.querySelectorAll("details.reasoning");
  var open=!Array.prototype.every.call(all,function(d){return d.open;});
  Array.prototype.forEach.call(all,function(d){d.open=open;});});
results.addEventListener("click",function(){var all=document.querySelectorAll("details.fold");
  var open=!Array.prototype.every.call(all,function(d){return d.open;});
  Array.prototype.forEach.call(all,function(d){d.open=open;});});
var current=-1;
function go(step){
  var shown=visible();if(shown.length===0)return;
  var at=shown.indexOf(turns[current]);var next=at<0?(step>0?0:shown.length-1):Math.max(0,Math.min(shown.length-1,at+step));
  if(current>=0){turns[current].classList.remove("current");links[current].classList.remove("current");}
  current=turns.indexOf(shown[next]);turns[current].classList.add("current");links[current].classList.add("current");
  turns[current].scrollIntoView({block:"start"});
}
document.addEventListener("keydown",function(e){
  if(e.target===search){if(e.key==="Escape"){search.value="";runSearch();search.blur();}return;}
  if(e.ctrlKey||e.metaKey||e.altKey)return;
  if(e.key==="j"){go(1);e.preventDefault();}else if(e.key==="k"){go(-1);e.preventDefault();}
  else if(e.key==="/"){search.focus();e.preventDefault();}
});
var opened=[];
window.addEventListener("beforeprint",function(){opened=Array.prototype.filter.call(document.querySelectorAll("details"),function(d){return !d.open;});
  opened.forEach(function(d){d.open=true;});});
window.addEventListener("afterprint",function(){opened.forEach(function(d){d.open=false;});opened=[];});
showCount();
var live=document.getElementById("live");
if(live&&window.EventSource){
  var source=new EventSource(live.dataset.url+"&from="+live.dataset.next);
  source.addEventListener("turn",function(e){
    var d=JSON.parse(e.data);var box=document.createElement("template");box.innerHTML=d.html;
    var section=box.content.firstElementChild;var old=document.getElementById("turn-"+d.n);var li=entry(section);
    var at=turns.indexOf(old);
    if(at>=0){old.replaceWith(section);links[at].replaceWith(li);turns[at]=section;links[at]=li;}
    else{live.parentNode.insertBefore(section,live);toc.appendChild(li);turns.push(section);links.push(li);}
    if(search.value.trim()!=="")runSearch();else showCount();
  });
}
})();`

const hash = createHash("sha256").update(SCRIPT, "utf8").digest("base64")

/** Nothing from the network; only the page's own style and its one script (by hash). */
export const CSP = `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-${hash}'; base-uri 'none'; form-action 'none'`
