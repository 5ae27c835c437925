// SPDX-License-Identifier: Apache-2.0
// Apache Curator x-discovery (ServiceDiscovery with the default JsonInstanceSerializer, payload
// class Object) for zkcoord's service registration interoperability test, driven line by line.
//   usage: java CuratorDiscovery CONNECT BASE_PATH
// Prints "ready" once connected. Commands (one a line, fields separated by TAB), each answered:
//   register NAME ID ADDRESS PORT SSL_PORT PAYLOAD TIME TYPE URI_TEMPLATE
//        ("-" for a null ADDRESS, PORT, SSL_PORT or URI_TEMPLATE; PAYLOAD is "-", "string:TEXT",
//        "int:N" or "map:KEY=VALUE" (a java.util.HashMap); TYPE a ServiceType name)
//        -> "registered"  (ServiceDiscovery.registerService)
//   query NAME     -> one "instance ..." line per queryForInstances(NAME), then "end COUNT",
//                     or "queryerror EXCEPTION" when the query throws
//   queryone NAME ID -> "instance ..." (queryForInstance), "missing" or "queryerror EXCEPTION"
//   quit           -> closes ServiceDiscovery (which deletes what it registered) and exits 0.
// An instance line is TAB-separated key=value: name id address port sslPort payloadClass payload
// time type uri (parts as [value,variable]...) uriBuilt (buildUriSpec()) enabled; values escape
// '\' TAB and newline as \\ \t \n, null is "null".
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.HashMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.x.discovery.ServiceDiscovery;
import org.apache.curator.x.discovery.ServiceDiscoveryBuilder;
import org.apache.curator.x.discovery.ServiceInstance;
import org.apache.curator.x.discovery.ServiceInstanceBuilder;
import org.apache.curator.x.discovery.ServiceType;
import org.apache.curator.x.discovery.UriSpec;

public class CuratorDiscovery {
  static void say(String line) {
    System.out.println(line);
    System.out.flush();
  }

  static String escape(Object value) {
    if (value == null) return "null";
    return value.toString().replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n");
  }

  static String describe(ServiceInstance<Object> i) {
    String uri = "null";
    String built = "null";
    if (i.getUriSpec() != null) {
      StringBuilder parts = new StringBuilder();
      for (UriSpec.Part p : i.getUriSpec().getParts())
        parts.append('[').append(p.getValue()).append(',').append(p.isVariable()).append(']');
      uri = parts.toString();
      built = i.buildUriSpec();
    }
    Object payload = i.getPayload();
    return "instance\tname=" + escape(i.getName()) + "\tid=" + escape(i.getId())
        + "\taddress=" + escape(i.getAddress()) + "\tport=" + escape(i.getPort())
        + "\tsslPort=" + escape(i.getSslPort())
        + "\tpayloadClass=" + (payload == null ? "null" : payload.getClass().getName())
        + "\tpayload=" + escape(payload) + "\ttime=" + i.getRegistrationTimeUTC()
        + "\ttype=" + i.getServiceType() + "\turi=" + escape(uri) + "\turiBuilt=" + escape(built)
        + "\tenabled=" + i.isEnabled();
  }

  static Object payloadOf(String spec) {
    if (spec.equals("-")) return null;
    if (spec.startsWith("string:")) return spec.substring(7);
    if (spec.startsWith("int:")) return Integer.valueOf(spec.substring(4));
    if (spec.startsWith("map:")) {
      String[] kv = spec.substring(4).split("=", 2);
      HashMap<String, String> map = new HashMap<>();
      map.put(kv[0], kv[1]);
      return map;
    }
    throw new IllegalArgumentException("payload " + spec);
  }

  static ServiceInstance<Object> instanceOf(String[] f) throws Exception {
    ServiceInstanceBuilder<Object> b = ServiceInstance.builder();
    b.name(f[1]).id(f[2]).address(f[3].equals("-") ? null : f[3]);
    if (!f[4].equals("-")) b.port(Integer.parseInt(f[4]));
    if (!f[5].equals("-")) b.sslPort(Integer.parseInt(f[5]));
    b.payload(payloadOf(f[6])).registrationTimeUTC(Long.parseLong(f[7]));
    b.serviceType(ServiceType.valueOf(f[8]));
    if (!f[9].equals("-")) b.uriSpec(new UriSpec(f[9]));
    return b.build();
  }

  public static void main(String[] a) throws Exception {
    String connect = a[0], base = a[1];
    CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, 10000, 5000,
        new ExponentialBackoffRetry(100, 3));
    ServiceDiscovery<Object> discovery = null;
    try {
      cf.start();
      cf.blockUntilConnected();
      discovery = ServiceDiscoveryBuilder.builder(Object.class).client(cf).basePath(base).build();
      discovery.start();
      say("ready");
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line; (line = in.readLine()) != null;) {
        String[] f = line.split("\t", -1);
        switch (f[0]) {
          case "register":
            discovery.registerService(instanceOf(f));
            say("registered");
            break;
          case "query":
            try {
              Collection<ServiceInstance<Object>> found = discovery.queryForInstances(f[1]);
              for (ServiceInstance<Object> i : found) say(describe(i));
              say("end " + found.size());
            } catch (Exception e) {
              say("queryerror " + escape(e));
            }
            break;
          case "queryone":
            try {
              ServiceInstance<Object> i = discovery.queryForInstance(f[1], f[2]);
              say(i == null ? "missing" : describe(i));
            } catch (Exception e) {
              say("queryerror " + escape(e));
            }
            break;
          case "quit":
            discovery.close();
            discovery = null;
            cf.close();
            System.exit(0);
            break;
          default:
            say("error unknown command " + f[0]);
            System.exit(1);
        }
      }
    } catch (Exception e) {
      say("error " + escape(e));
      System.exit(1);
    } finally {
      if (discovery != null) discovery.close();
      cf.close();
    }
  }
}
