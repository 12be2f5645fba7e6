package org.cudaipc4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Optional;
import javax.xml.parsers.DocumentBuilderFactory;
import org.cudaipc4j.testing.ProjectRoot;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

/**
 * The tests' support module and the command line's build-time processor are built with the libraries but neither
 * installed nor deployed with them.
 */
class TestSupportNotPublishedTest {
    @Test
    void installAndDeployAreSkippedForTheTestSupportAndTheProcessor() throws Exception {
        Optional<Path> root = ProjectRoot.find();
        Assumptions.assumeTrue(root.isPresent(), "skipped: not run inside the project's checkout");
        for (String module : new String[] {"cudaipc4j-testing", "cudaipc4j-cli-processor"}) {
            Element project = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                    .parse(root.get().resolve(module + "/pom.xml").toFile()).getDocumentElement();
            Element properties = (Element) project.getElementsByTagName("properties").item(0);
            for (String skip : new String[] {"maven.install.skip", "maven.deploy.skip"}) {
                assertEquals("true", properties.getElementsByTagName(skip).item(0) == null ? "(not set)"
                        : properties.getElementsByTagName(skip).item(0).getTextContent().strip(), module + " " + skip);
            }
        }
    }
}
