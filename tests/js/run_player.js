// Runs the inline animation player of skelsimd.plotting (ClipAnimation.to_html) in node with a
// minimal DOM and canvas stub: the script must run without errors, draw the background and the
// bones of frame 0 on load, step through frames when played, and follow the slider.
// Usage: node run_player.js player.html  -> prints a JSON report on stdout.
const fs = require("fs");
const html = fs.readFileSync(process.argv[2], "utf8");
const script = html.split("<script>")[1].split("</script>")[0];
const id = /id="([^"]+)"/.exec(html)[1];
const calls = [];
function element(extra) { return Object.assign({ textContent: "", value: "0", checked: true }, extra); }
const ctx = new Proxy({}, {
  get(target, name) {
    if (name in target) return target[name];
    return (...args) => calls.push([name, ...args]);
  },
  set(target, name, value) { target[name] = value; calls.push(["set " + name, value]); return true; },
});
const canvas = element({ width: 0, height: 0, getContext: () => ctx });
const parts = {
  "canvas": canvas, "input[type=range]": element(), ".sks-frame": element(),
  ".sks-play": element(), ".sks-loop": element(), ".sks-prev": element(), ".sks-next": element(),
};
const root = { querySelector: (q) => parts[q] };
let timerFn = null;
global.document = { getElementById: (x) => (x === id ? root : null) };
global.setInterval = (fn) => { timerFn = fn; return 1; };
global.clearInterval = () => { timerFn = null; };
global.atob = (s) => Buffer.from(s, "base64").toString("binary");
global.Image = function () {
  const img = {};
  Object.defineProperty(img, "src", { set(v) { img._src = v; if (img.onload) img.onload(); } });
  return img;
};
eval(script);
const frames = [];
function lines() {   // the moveTo / lineTo coordinates since the last clearRect
  const last = calls.map((c) => c[0]).lastIndexOf("clearRect");
  return calls.slice(last).filter((c) => c[0] === "moveTo" || c[0] === "lineTo").map((c) => [c[1], c[2]]);
}
frames.push({ label: parts[".sks-frame"].textContent, lines: lines() });
parts[".sks-play"].onclick();
const playing = timerFn !== null;
timerFn(); timerFn();
frames.push({ label: parts[".sks-frame"].textContent, lines: lines() });
parts["input[type=range]"].value = "5";
parts["input[type=range]"].oninput();
frames.push({ label: parts[".sks-frame"].textContent, lines: lines() });
const drewBackground = calls.some((c) => c[0] === "drawImage");
console.log(JSON.stringify({ playing, drewBackground, stoppedBySlider: timerFn === null, frames }));
