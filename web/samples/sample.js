// What every sample page adds to the seed's sample code: show() writes a line, and
// runSample(fn) waits for the WebAssembly module, runs the sample and leaves its result as
// JSON in #result for the browser tests.
function show(text) {
    document.getElementById("output").insertAdjacentHTML("beforeend", "<p>" + text + "</p>");
}

function runSample(sample) {
    GPGPU.ready.then(function () {
        document.getElementById("result").textContent = JSON.stringify(sample());
    }).catch(function (e) {
        document.getElementById("result").textContent = "error: " + e.name + ": " + e.message;
        console.error(e);
    });
}
