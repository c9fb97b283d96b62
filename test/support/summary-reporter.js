// Prints the plain closing line CI reads: "jest: N passed, N failed[, N skipped]".
// Written at process exit so it comes after Jest's own summary, as the last line of the run.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const line = `jest: ${results.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`;
    process.on('exit', () => process.stderr.write(line));
  }
}
module.exports = SummaryReporter;
