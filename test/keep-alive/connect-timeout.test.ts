import { Duration } from 'cdk8s';
import {
  AppServer,
  decideKeepAlive,
  lostSynsSurvived,
  lostSynsSurvivedOn,
  SYN_RETRANSMIT_SECONDS,
  SYN_RETRANSMIT_SECONDS_LINEAR,
} from '../../src/decisions/keep-alive';

/**
 * The connect timeout's reason states what it survives, from Linux's SYN retransmission schedules:
 * initial RTO 1 s (include/net/tcp.h TCP_TIMEOUT_INIT); before 6.5 it doubles at every timeout; from
 * 6.5 on (commit ccce324dabfe) net/ipv4/tcp_timer.c tcp_retransmit_timer doubles it only once the
 * socket's total_rto exceeds net.ipv4.tcp_syn_linear_timeouts (default 4), and tcp_write_timeout
 * allows tcp_syn_retries (6) + tcp_syn_linear_timeouts retransmissions.
 */
function kernelSchedule(linearTimeouts: number, synRetries = 6): number[] {
  const out: number[] = [];
  let rto = 1;
  let t = 0;
  let totalRto = 0;
  for (let i = 0; i < synRetries + linearTimeouts; i++) {
    t += rto; // the timer fires: tcp_update_rto_stats, the SYN goes out again
    out.push(t);
    totalRto++;
    if (totalRto > linearTimeouts) rto *= 2; // else: SYN_SENT within the linear timeouts keeps the RTO
  }
  return out;
}

describe("the connect timeout against the kernel's SYN retransmissions", () => {
  test("the schedules follow the kernel's rule: 1, 3, 7, 15, 31, 63 s before 6.5, 1, 2, 3, 4, 5, 7, 11, ... from 6.5 on; a timeout survives those sent before it, and the stated figure is the worse one", () => {
    expect([...SYN_RETRANSMIT_SECONDS]).toEqual(kernelSchedule(0));
    expect([...SYN_RETRANSMIT_SECONDS_LINEAR]).toEqual(kernelSchedule(4));
    expect([...SYN_RETRANSMIT_SECONDS_LINEAR]).toEqual([1, 2, 3, 4, 5, 7, 11, 19, 35, 67]);
    expect(lostSynsSurvived(1)).toBe(0); // the retransmission at 1 s is answered after the 1 s timeout
    expect(
      [2, 3, 10].map((s) => [
        lostSynsSurvivedOn(s, SYN_RETRANSMIT_SECONDS),
        lostSynsSurvivedOn(s, SYN_RETRANSMIT_SECONDS_LINEAR),
      ]),
    ).toEqual([
      [1, 1],
      [1, 2],
      [3, 6],
    ]);
    expect([2, 3, 10].map(lostSynsSurvived)).toEqual([1, 1, 3]);
    for (let s = 0.5; s <= 70; s += 0.5)
      expect(lostSynsSurvived(s)).toBe(
        Math.min(lostSynsSurvivedOn(s, SYN_RETRANSMIT_SECONDS), lostSynsSurvivedOn(s, SYN_RETRANSMIT_SECONDS_LINEAR)),
      );
  });

  test("gunicorn (2 s keep-alive, idle 1 s): the connect timeout is Envoy's 10 s, not the idle timeout, and the reason says why (envoy#42753 fixed in Envoy 1.38.0)", () => {
    const d = decideKeepAlive({ appServer: AppServer.gunicornGthread() });
    expect([d.idleTimeoutSeconds.value, d.connectTimeoutSeconds.value]).toEqual([1, 10]);
    expect(d.connectTimeoutSeconds.reason).toContain(
      'not lowered to the idle timeout 1 s: Envoy before 1.38.0 ran the idle timer while the connection was still being established',
    );
    expect(d.connectTimeoutSeconds.reason).toContain('envoy#42756');
    expect(d.connectTimeoutSeconds.reason).toContain(
      'so a connect timeout of 10 s survives at least 3 lost SYNs in a row',
    );
    expect(lostSynsSurvived(d.connectTimeoutSeconds.value)).toBeGreaterThan(
      lostSynsSurvived(d.idleTimeoutSeconds.value!),
    );
  });

  test("a connect timeout of 3 s (an override) survives at least one lost SYN, two from Linux 6.5 on; Envoy's 10 s default at least three, six from 6.5 on", () => {
    expect(
      decideKeepAlive({
        appServer: AppServer.uvicorn(),
        connectTimeout: { value: Duration.seconds(3), because: 'fail over to another pod sooner' },
      }).connectTimeoutSeconds.value,
    ).toBe(3);
    expect(decideKeepAlive({ appServer: AppServer.uvicorn() }).connectTimeoutSeconds.reason).toContain(
      'a connect timeout of 10 s survives at least 3 lost SYNs in a row: 3 on kernels before 6.5 (the next retransmission, 15 s after the first, comes too late), 6 from 6.5 on',
    );
    expect(decideKeepAlive({ appServer: AppServer.nginx() }).connectTimeoutSeconds.reason).toContain(
      'a connect timeout of 10 s survives at least 3 lost SYNs in a row: 3 on kernels before 6.5 (the next retransmission, 15 s after the first, comes too late), 6 from 6.5 on',
    );
  });
});
